/**
 * @interlock/ai/vercel through the real Vercel AI SDK (`generateText`, `streamText`) and its OpenAI provider, against
 * a fake Chat Completions server over real HTTP: what the tool got, what the model was sent next, and the receipts.
 */
import { createOpenAI } from "@ai-sdk/openai"
import { assert, describe, it } from "@effect/vitest"
import { Approvals, Policy, type Receipt, Verdict } from "@interlock/core"
import { generateText, stepCountIs, streamText, tool, type ToolSet } from "ai"
import { Effect } from "effect"
import { z } from "zod"
import { closeTools, interlockTools } from "../src/vercel/index.ts"
import { fakeOpenAi, type Reply, toolMessages } from "./support/FakeOpenAi.ts"
import { closedAfterEach, reads, redact, SECRET } from "./support/Governance.ts"

const open = closedAfterEach()

/** A fake model that makes `calls` on its first turn and then answers "done". */
const model = async (calls: Reply["toolCalls"]) => {
  const fake = await fakeOpenAi((_body, index) => (index === 0 ? { toolCalls: calls } : { text: "done" }))
  open.push(fake)
  return { fake, model: createOpenAI({ baseURL: fake.url, apiKey: "test" }).chat("fake") }
}

/** Two real tools that record what they were called with: `read` returns a file's text, `remove` deletes. */
const workspace = (files: Record<string, string> = { "notes.txt": "hello" }) => {
  const ran: Array<{ tool: string; args: unknown }> = []
  const tools = {
    read: tool({
      description: "Read a file",
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => {
        ran.push({ tool: "read", args: { path } })
        if (!(path in files)) throw new Error(`no such file: ${path}`)
        return { path, text: files[path]! }
      }
    }),
    remove: tool({
      description: "Delete a file",
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => {
        ran.push({ tool: "remove", args: { path } })
        delete files[path]
        return "deleted"
      }
    })
  }
  return { ran, tools, files }
}

/** Governed tools, closed after the test. */
const govern = <T extends ToolSet>(tools: T, options: Parameters<typeof interlockTools<T>>[1]) => {
  const governed = interlockTools(tools, options)
  open.push({ close: () => closeTools(governed) })
  return governed
}

describe("interlockTools through generateText", () => {
  it(
    "an allowed call runs with the model's arguments; one the policy does not allow never runs, and the " +
      "model is told",
    async () => {
      const { fake, model: llm } = await model([
        { name: "read", args: { path: "notes.txt" } },
        { name: "remove", args: { path: "notes.txt" } }
      ])
      const { ran, tools, files } = workspace()
      const receipts: Array<Receipt> = []
      const result = await generateText({
        model: llm,
        tools: govern(tools, { policy: reads, onReceipt: (receipt) => void receipts.push(receipt) }),
        prompt: "tidy up",
        stopWhen: stepCountIs(3)
      })
      assert.strictEqual(result.text, "done")
      assert.deepStrictEqual(ran, [{ tool: "read", args: { path: "notes.txt" } }])
      assert.strictEqual(files["notes.txt"], "hello")
      const sent = toolMessages(fake.bodies[1]!)
      assert.include(sent.find((m) => m.tool_call_id === "call_0_0")!.content, "hello")
      assert.include(sent.find((m) => m.tool_call_id === "call_0_1")!.content, "denied by policy")
      const outcomes = receipts.map((r) => [r.name, r.outcome, r.sent, r.policy?.rule]).sort()
      assert.deepStrictEqual(outcomes, [["read", "ok", true, "reads"], ["remove", "denied", false, undefined]])
    }
  )

  it("a preToolCall hook's rewrite is what the tool gets, and what the policy decides on", async () => {
    const { model: llm } = await model([
      { name: "read", args: { path: "./notes.txt" } },
      { name: "read", args: { path: "../../etc/passwd" } }
    ])
    const { ran, tools } = workspace()
    const normalize = (path: string) => path.replace(/^\.\//, "")
    await generateText({
      model: llm,
      tools: govern(tools, {
        hooks: {
          preToolCall: [{
            match: "ai/read",
            id: "normalize",
            run: (call) => Verdict.rewrite({ args: { path: normalize(String(call.args.path)) } })
          }]
        },
        policy: Policy.rules({
          rules: [
            { id: "inside", match: "ai/read", decision: "deny", when: (args) => String(args.path).includes("..") },
            { id: "reads", match: "ai/read", decision: "allow" }
          ],
          default: "deny"
        })
      }),
      prompt: "read",
      stopWhen: stepCountIs(3)
    })
    assert.deepStrictEqual(ran, [{ tool: "read", args: { path: "notes.txt" } }])
  })

  it("redaction: a secret in a tool's output never reaches the model, the SDK's steps or the receipts", async () => {
    const { fake, model: llm } = await model([{ name: "read", args: { path: "env" } }])
    const { tools } = workspace({ env: `API_KEY=${SECRET}` })
    const receipts: Array<Receipt> = []
    const result = await generateText({
      model: llm,
      tools: govern(tools, {
        hooks: { postToolCall: [redact] },
        policy: reads,
        onReceipt: (receipt) => void receipts.push(receipt)
      }),
      prompt: "read env",
      stopWhen: stepCountIs(3)
    })
    assert.include(fake.bodies[1]!, "[REDACTED]")
    for (const body of fake.bodies) assert.notInclude(body, SECRET)
    assert.notInclude(JSON.stringify(result.steps), SECRET)
    assert.notInclude(JSON.stringify(receipts), SECRET)
  })

  it(
    "redaction covers a tool's thrown error too: its message, with the secret, reaches neither the model " +
      "nor the SDK",
    async () => {
      const { fake, model: llm } = await model([{ name: "read", args: { path: "db.txt" } }])
      const tools = {
        read: tool({
          inputSchema: z.object({ path: z.string() }),
          execute: async (): Promise<string> => {
            throw new Error(`cannot reach postgres://app:${SECRET}@db`)
          }
        })
      }
      const result = await generateText({
        model: llm,
        tools: govern(tools, {
          hooks: { postToolCall: [redact] },
          policy: reads
        }),
        prompt: "read",
        stopWhen: stepCountIs(3)
      })
      const error = result.steps[0]!.content.find((part) => part.type === "tool-error") as { error: Error } | undefined
      assert.include(error!.error.message, "cannot reach postgres://app:[REDACTED]@db")
      for (const body of fake.bodies) assert.notInclude(body, SECRET)
    }
  )

  it("ask: the approver sees the call and decides; a denied ask never runs", async () => {
    const { fake, model: llm } = await model([
      { name: "remove", args: { path: "a.txt" } },
      { name: "remove", args: { path: "b.txt" } }
    ])
    const { ran, tools } = workspace({ "a.txt": "a", "b.txt": "b" })
    const asked: Array<unknown> = []
    await generateText({
      model: llm,
      tools: govern(tools, {
        policy: Policy.rules({ rules: [{ match: "ai/remove", decision: "ask", reason: "deleting" }], default: "deny" }),
        approvals: Approvals.layer({
          approver: (request) => {
            asked.push(request.call.args)
            return request.call.args.path === "a.txt" ? { decision: "allow" } : { decision: "deny", reason: "keep b" }
          }
        })
      }),
      prompt: "delete",
      stopWhen: stepCountIs(3)
    })
    assert.sameDeepMembers(asked, [{ path: "a.txt" }, { path: "b.txt" }])
    assert.deepStrictEqual(ran, [{ tool: "remove", args: { path: "a.txt" } }])
    assert.include(toolMessages(fake.bodies[1]!).find((m) => m.tool_call_id === "call_0_1")!.content, "keep b")
  })

  it(
    "fails closed: a hook that throws or hangs past its deadline stops the call, and the tool " +
      "never runs",
    async () => {
      const { fake, model: llm } = await model([
        { name: "read", args: { path: "notes.txt" } },
        { name: "remove", args: { path: "notes.txt" } }
      ])
      const { ran, tools } = workspace()
      await generateText({
        model: llm,
        tools: govern(tools, {
          hooks: {
            preToolCall: [
              { match: "ai/read", id: "broken", run: () => Effect.die(new Error(`leaks ${SECRET}`)) },
              { match: "ai/remove", id: "stuck", timeout: "50 millis", run: () => Effect.never }
            ]
          },
          policy: Policy.rules({ rules: [{ match: "ai/*", decision: "allow" }], default: "deny" })
        }),
        prompt: "go",
        stopWhen: stepCountIs(3)
      })
      assert.deepStrictEqual(ran, [])
      assert.lengthOf(toolMessages(fake.bodies[1]!), 2)
      assert.notInclude(fake.bodies[1]!, SECRET)
    }
  )

  it(
    "an audit sink that fails withholds the result: the tool ran, the model gets an error, not " +
      "the output",
    async () => {
      const { fake, model: llm } = await model([{ name: "read", args: { path: "notes.txt" } }])
      const { ran, tools } = workspace({ "notes.txt": `text ${SECRET}` })
      await generateText({
        model: llm,
        tools: govern(tools, {
          policy: reads,
          onReceipt: () => Promise.reject(new Error("the audit store is down"))
        }),
        prompt: "read",
        stopWhen: stepCountIs(3)
      })
      assert.lengthOf(ran, 1)
      assert.notInclude(fake.bodies[1]!, SECRET)
      assert.include(toolMessages(fake.bodies[1]!)[0]!.content, "the audit store is down")
    }
  )

  it("a tool's own error reaches the SDK as the very error it threw, with no hook in the way", async () => {
    const { model: llm } = await model([{ name: "read", args: { path: "missing.txt" } }])
    const { tools } = workspace()
    const result = await generateText({
      model: llm,
      tools: govern(tools, { policy: reads }),
      prompt: "read",
      stopWhen: stepCountIs(3)
    })
    const error = result.steps[0]!.content.find((part) => part.type === "tool-error")
    assert.instanceOf((error as { error: unknown }).error, Error)
    assert.strictEqual((error as { error: Error }).error.message, "no such file: missing.txt")
  })

  it("principals: the same rules allow alice and deny bob", async () => {
    const policy = Policy.rules({
      rules: [{ match: "ai/remove", decision: "allow", principals: ["alice"] }],
      default: "deny"
    })
    const outcomes: Array<string> = []
    for (const id of ["alice", "bob"]) {
      const { model: llm } = await model([{ name: "remove", args: { path: `${id}.txt` } }])
      const { ran, tools } = workspace({ [`${id}.txt`]: id })
      await generateText({
        model: llm,
        tools: govern(tools, { policy, principal: { id } }),
        prompt: "delete",
        stopWhen: stepCountIs(3)
      })
      outcomes.push(`${id}:${ran.length}`)
    }
    assert.deepStrictEqual(outcomes, ["alice:1", "bob:0"])
  })
})

describe("interlockTools through streamText", () => {
  it("the same governance on a streamed run: the allowed call's output, the denied call's error", async () => {
    const { fake, model: llm } = await model([
      { name: "read", args: { path: "notes.txt" } },
      { name: "remove", args: { path: "notes.txt" } }
    ])
    const { ran, tools } = workspace()
    const stream = streamText({
      model: llm,
      tools: govern(tools, { policy: reads }),
      prompt: "tidy",
      stopWhen: stepCountIs(3)
    })
    const parts: Array<string> = []
    for await (const part of stream.fullStream) parts.push(part.type)
    assert.strictEqual(await stream.text, "done")
    assert.includeMembers(parts, ["tool-result", "tool-error"])
    assert.deepStrictEqual(ran, [{ tool: "read", args: { path: "notes.txt" } }])
    assert.include(toolMessages(fake.bodies[1]!).find((m) => m.tool_call_id === "call_0_1")!.content, "denied")
  })
})

describe("deadlines and cancellation", () => {
  /** A tool that never settles by itself; it records whether its signal aborted, and why. */
  const hanging = () => {
    const aborted: Array<string> = []
    let started: () => void = () => undefined
    const running = new Promise<void>((resolve) => (started = resolve))
    const wait = tool({
      inputSchema: z.object({}),
      execute: (_input, { abortSignal }) =>
        new Promise<string>(() => {
          abortSignal?.addEventListener("abort", () => aborted.push(String(abortSignal.reason?._tag ?? "abort")))
          started()
        })
    })
    return { aborted, running, tools: { wait } }
  }
  const allowWait = Policy.rules({ rules: [{ match: "ai/wait", decision: "allow" }], default: "deny" })

  it("a tool past callTimeout: the call fails with Timeout at the deadline, and the tool's signal aborts", async () => {
    const { fake, model: llm } = await model([{ name: "wait", args: {} }])
    const { aborted, tools } = hanging()
    const receipts: Array<Receipt> = []
    const started = Date.now()
    await generateText({
      model: llm,
      tools: govern(tools, {
        policy: allowWait,
        callTimeout: "150 millis",
        onReceipt: (receipt) => void receipts.push(receipt)
      }),
      prompt: "wait",
      stopWhen: stepCountIs(3)
    })
    assert.isAtLeast(Date.now() - started, 140)
    assert.deepStrictEqual(aborted, ["Timeout"])
    assert.include(toolMessages(fake.bodies[1]!)[0]!.content, "timed out after 150 ms")
    assert.deepStrictEqual(receipts.map((r) => [r.outcome, r.sent]), [["failed", true]])
  })

  it("the caller's abortSignal cancels a call in flight: the tool's signal aborts and the run rejects", async () => {
    const { model: llm } = await model([{ name: "wait", args: {} }])
    const { aborted, running: started, tools } = hanging()
    const controller = new AbortController()
    const running = generateText({
      model: llm,
      tools: govern(tools, { policy: allowWait }),
      prompt: "wait",
      abortSignal: controller.signal,
      stopWhen: stepCountIs(3)
    })
    await started
    controller.abort()
    const error = await running.then(() => undefined, (e: unknown) => e)
    assert.strictEqual((error as Error).name, "AbortError")
    assert.strictEqual(aborted.length, 1)
  })
})

describe("closeTools", () => {
  it("closed tools reject later calls with ClientClosed; tools it did not make are a TypeError", async () => {
    const { tools } = workspace()
    const governed = interlockTools(tools, { policy: reads })
    await closeTools(governed)
    const rejected = await Promise.resolve(
      governed.read.execute!({ path: "notes.txt" }, { toolCallId: "x", messages: [], context: {} })
    ).catch((error) => error)
    assert.strictEqual(rejected._tag, "ClientClosed")
    const other = await closeTools(tools).catch((error) => error)
    assert.instanceOf(other, TypeError)
  })
})
