/**
 * @interlock/ai/langchain through a real LangChain v1 agent (`createAgent`) and its OpenAI chat model, against a fake
 * Chat Completions server over real HTTP: what the tool got, what the model was sent next, and the receipts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Approvals, Policy, type Receipt } from "@interlock/core"
import { tool } from "@langchain/core/tools"
import { ChatOpenAI } from "@langchain/openai"
import { createAgent } from "langchain"
import { z } from "zod"
import { interlockMiddleware, type InterlockMiddlewareOptions } from "../src/langchain/index.ts"
import { fakeOpenAi, type Reply, toolMessages } from "./support/FakeOpenAi.ts"
import { closedAfterEach, reads, rewriteAndRedact, SECRET } from "./support/Governance.ts"

const open = closedAfterEach()

/** Two real tools that record what they were called with: `read` returns a file's text, `remove` deletes. */
const workspace = (files: Record<string, string> = { "notes.txt": "hello" }) => {
  const ran: Array<{ tool: string; args: unknown }> = []
  const read = tool(async ({ path }) => {
    ran.push({ tool: "read", args: { path } })
    return files[path] ?? `no such file: ${path}`
  }, { name: "read", description: "Read a file", schema: z.object({ path: z.string() }) })
  const remove = tool(async ({ path }) => {
    ran.push({ tool: "remove", args: { path } })
    delete files[path]
    return "deleted"
  }, { name: "remove", description: "Delete a file", schema: z.object({ path: z.string() }) })
  return { ran, files, tools: [read, remove] }
}

/** An agent over the fake model (which makes `calls`, then answers "done") with the middleware; its fake and result. */
const run = async (
  calls: Reply["toolCalls"],
  tools: ReturnType<typeof workspace>["tools"],
  options: InterlockMiddlewareOptions
) => {
  const fake = await fakeOpenAi((_body, index) => (index === 0 ? { toolCalls: calls } : { text: "done" }))
  const middleware = interlockMiddleware(options)
  open.push(fake, middleware)
  const model = new ChatOpenAI({ model: "fake", apiKey: "test", configuration: { baseURL: fake.url } })
  const agent = createAgent({ model, tools, middleware: [middleware] })
  const result = await agent.invoke({ messages: [{ role: "user", content: "go" }] })
  return { fake, result }
}

describe("interlockMiddleware in createAgent", () => {
  it(
    "an allowed call runs; one the policy does not allow never runs, and the model gets an error " +
      "that says so",
    async () => {
      const { ran, files, tools } = workspace()
      const receipts: Array<Receipt> = []
      const { fake, result } = await run(
        [{ name: "read", args: { path: "notes.txt" } }, { name: "remove", args: { path: "notes.txt" } }],
        tools,
        { policy: reads, onReceipt: (receipt) => void receipts.push(receipt) }
      )
      assert.deepStrictEqual(ran, [{ tool: "read", args: { path: "notes.txt" } }])
      assert.strictEqual(files["notes.txt"], "hello")
      const sent = toolMessages(fake.bodies[1]!)
      assert.strictEqual(sent.find((m) => m.tool_call_id === "call_0_0")!.content, "hello")
      assert.include(sent.find((m) => m.tool_call_id === "call_0_1")!.content, "denied by policy")
      assert.strictEqual(result.messages.at(-1)!.content, "done")
      const outcomes = receipts.map((r) => [r.name, r.outcome, r.sent]).sort()
      assert.deepStrictEqual(outcomes, [["read", "ok", true], ["remove", "denied", false]])
    }
  )

  it("a rewrite reaches the tool; redaction keeps a secret from the model and from the agent's messages", async () => {
    const { ran, tools } = workspace({ "notes.txt": `token ${SECRET}` })
    const { fake, result } = await run([{ name: "read", args: { path: "./notes.txt" } }], tools, rewriteAndRedact)
    assert.deepStrictEqual(ran, [{ tool: "read", args: { path: "notes.txt" } }])
    assert.include(fake.bodies[1]!, "token [REDACTED]")
    for (const body of fake.bodies) assert.notInclude(body, SECRET)
    assert.notInclude(JSON.stringify(result.messages), SECRET)
  })

  it("ask goes to the approver; a hook that fails stops the call closed", async () => {
    const { ran, tools } = workspace({ "a.txt": "a" })
    const asked: Array<unknown> = []
    const { fake } = await run(
      [{ name: "remove", args: { path: "a.txt" } }, { name: "read", args: { path: "a.txt" } }],
      tools,
      {
        hooks: { preToolCall: [{ match: "ai/read", id: "broken", run: () => Promise.reject(new Error(SECRET)) }] },
        policy: Policy.rules({
          rules: [{ match: "ai/remove", decision: "ask" }, { match: "ai/read", decision: "allow" }],
          default: "deny"
        }),
        approvals: Approvals.layer({
          approver: (request) => {
            asked.push(request.call.args)
            return { decision: "deny", reason: "keep it" }
          }
        })
      }
    )
    assert.deepStrictEqual(asked, [{ path: "a.txt" }])
    assert.deepStrictEqual(ran, [])
    const sent = toolMessages(fake.bodies[1]!)
    assert.include(sent.find((m) => m.tool_call_id === "call_0_0")!.content, "keep it")
    assert.lengthOf(sent, 2)
    assert.notInclude(fake.bodies[1]!, SECRET)
  })
})
