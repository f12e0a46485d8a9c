/**
 * @interlock/ai/openai-agents through the real OpenAI Agents JS runner (`run()`) and its Chat Completions model,
 * against a fake Chat Completions server over real HTTP: what the tool got, what the model was sent, the receipts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Approvals, Policy, type Receipt } from "@interlock/core"
import {
  Agent,
  OpenAIChatCompletionsModel,
  run,
  setTracingDisabled,
  tool,
  ToolCallError,
  ToolInputGuardrailTripwireTriggered
} from "@openai/agents"
import OpenAI from "openai"
import { z } from "zod"
import { interlockTools, type InterlockToolsOptions } from "../src/openai-agents/index.ts"
import { fakeOpenAi, type Reply, toolMessages } from "./support/FakeOpenAi.ts"
import { closedAfterEach, reads, rewriteAndRedact, SECRET } from "./support/Governance.ts"

setTracingDisabled(true)

const open = closedAfterEach()

/** Two real tools that record what they were called with: `read` returns a file's text, `remove` deletes. */
const workspace = (files: Record<string, string> = { "notes.txt": "hello" }) => {
  const ran: Array<{ tool: string; args: unknown }> = []
  const read = tool({
    name: "read",
    description: "Read a file",
    parameters: z.object({ path: z.string() }),
    execute: async ({ path }) => {
      ran.push({ tool: "read", args: { path } })
      return files[path] ?? `no such file: ${path}`
    }
  })
  const remove = tool({
    name: "remove",
    description: "Delete a file",
    parameters: z.object({ path: z.string() }),
    execute: async ({ path }) => {
      ran.push({ tool: "remove", args: { path } })
      delete files[path]
      return "deleted"
    }
  })
  return { ran, files, tools: [read, remove] }
}

/** A run of an agent over the fake model (which makes `calls`, then answers "done") with the governed tools. */
const runAgent = async (
  calls: Reply["toolCalls"],
  tools: ReturnType<typeof workspace>["tools"],
  options: InterlockToolsOptions
) => {
  const fake = await fakeOpenAi((_body, index) => (index === 0 ? { toolCalls: calls } : { text: "done" }))
  const governed = interlockTools(tools, options)
  open.push(fake, governed)
  const model = new OpenAIChatCompletionsModel(new OpenAI({ baseURL: fake.url, apiKey: "test" }), "fake")
  const agent = new Agent({ name: "files", instructions: "help", model, tools: [...governed.tools] })
  const result = await run(agent, "go", { maxTurns: 4 }).catch((error: unknown) => error)
  return { fake, result }
}

describe("interlockTools in an OpenAI Agents run", () => {
  it(
    "an allowed call runs; a denied one never runs, and the model gets the reason, as " +
      "rejectContent gives it",
    async () => {
      const { ran, files, tools } = workspace()
      const receipts: Array<Receipt> = []
      const { fake, result } = await runAgent(
        [{ name: "read", args: { path: "notes.txt" } }, { name: "remove", args: { path: "notes.txt" } }],
        tools,
        { policy: reads, onReceipt: (receipt) => void receipts.push(receipt) }
      )
      assert.strictEqual((result as { finalOutput: string }).finalOutput, "done")
      assert.deepStrictEqual(ran, [{ tool: "read", args: { path: "notes.txt" } }])
      assert.strictEqual(files["notes.txt"], "hello")
      const sent = toolMessages(fake.bodies[1]!)
      assert.strictEqual(sent.find((m) => m.tool_call_id === "call_0_0")!.content, "hello")
      assert.include(sent.find((m) => m.tool_call_id === "call_0_1")!.content, "denied by policy")
      assert.deepStrictEqual(receipts.map((r) => [r.name, r.outcome, r.sent]).sort(), [["read", "ok", true], [
        "remove",
        "denied",
        false
      ]])
    }
  )

  it("a rewrite is what the tool parses; redaction keeps a secret from the model and the run's items", async () => {
    const { ran, tools } = workspace({ "notes.txt": `token ${SECRET}` })
    const { fake, result } = await runAgent([{ name: "read", args: { path: "./notes.txt" } }], tools, rewriteAndRedact)
    assert.deepStrictEqual(ran, [{ tool: "read", args: { path: "notes.txt" } }])
    assert.include(fake.bodies[1]!, "token [REDACTED]")
    for (const body of fake.bodies) assert.notInclude(body, SECRET)
    assert.notInclude(JSON.stringify((result as { newItems: unknown }).newItems), SECRET)
  })

  it(
    "ask goes to the approver; a hook that fails ends the run with the tool-input tripwire, and " +
      "nothing ran",
    async () => {
      const asked: Array<unknown> = []
      const first = workspace({ "a.txt": "a" })
      const denied = await runAgent([{ name: "remove", args: { path: "a.txt" } }], first.tools, {
        policy: Policy.rules({ rules: [{ match: "ai/remove", decision: "ask" }], default: "deny" }),
        approvals: Approvals.layer({
          approver: (request) => {
            asked.push(request.call.args)
            return { decision: "deny", reason: "keep it" }
          }
        })
      })
      assert.deepStrictEqual(asked, [{ path: "a.txt" }])
      assert.deepStrictEqual(first.ran, [])
      assert.include(toolMessages(denied.fake.bodies[1]!)[0]!.content, "keep it")

      const second = workspace()
      const broken = await runAgent([{ name: "read", args: { path: "notes.txt" } }], second.tools, {
        hooks: { preToolCall: [{ match: "ai/read", id: "broken", run: () => Promise.reject(new Error(SECRET)) }] },
        policy: reads
      })
      // The runner reports a throwing invoke as a ToolCallError; its error is the tripwire.
      assert.instanceOf(broken.result, ToolCallError)
      assert.instanceOf((broken.result as ToolCallError).error, ToolInputGuardrailTripwireTriggered)
      assert.include((broken.result as ToolCallError).error.message, "Interlock stopped tool read")
      assert.notInclude(`${(broken.result as Error).message} ${(broken.result as ToolCallError).error.message}`, SECRET)
      assert.deepStrictEqual(second.ran, [])
      assert.lengthOf(broken.fake.bodies, 1)
    }
  )
})
