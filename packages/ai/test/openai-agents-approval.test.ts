/**
 * `approvals: "sdk"` in OpenAI Agents JS: through the real `run()` and its Chat Completions model against the fake
 * server over HTTP, the policy's Ask is a run interruption; `state.approve` runs the call through the whole pipeline,
 * `state.reject` keeps it from running, and an approval is spent once: a model that reuses the approved call's id
 * gets nothing through.
 */
import { assert, describe, it } from "@effect/vitest"
import { Policy, type Receipt } from "@interlock/core"
import { Agent, ModelBehaviorError, OpenAIChatCompletionsModel, run, setTracingDisabled, tool } from "@openai/agents"
import OpenAI from "openai"
import { z } from "zod"
import { interlockTools } from "../src/openai-agents/index.ts"
import { fakeOpenAi, type Reply } from "./support/FakeOpenAi.ts"
import { closedAfterEach } from "./support/Governance.ts"

setTracingDisabled(true)

const open = closedAfterEach()

const asksToRemove = Policy.rules({
  rules: [{ id: "removals", match: "ai/remove", decision: "ask", reason: "deleting needs a person" }],
  default: "deny"
})

/** An agent over the fake model (`first`, then `later`) with a governed `remove` that records what it deleted. */
const setup = async (first: Reply, later: (index: number) => Reply = () => ({ text: "done" })) => {
  const removed: Array<string> = []
  const receipts: Array<Receipt> = []
  const remove = tool({
    name: "remove",
    description: "Delete a file",
    parameters: z.object({ path: z.string() }),
    execute: async ({ path }) => {
      removed.push(path)
      return `deleted ${path}`
    }
  })
  const governed = interlockTools([remove], {
    policy: asksToRemove,
    approvals: "sdk",
    onReceipt: (receipt) => void receipts.push(receipt)
  })
  const fake = await fakeOpenAi((_body, index) => (index === 0 ? first : later(index)))
  open.push(fake, governed)
  const model = new OpenAIChatCompletionsModel(new OpenAI({ baseURL: fake.url, apiKey: "test" }), "fake")
  const agent = new Agent({ name: "files", instructions: "help", model, tools: [...governed.tools] })
  return { agent, removed, receipts }
}

const removeNotes: Reply = { toolCalls: [{ name: "remove", args: { path: "notes.txt" } }] }

describe("approvals: \"sdk\" in an OpenAI Agents run", () => {
  it("the policy's Ask is the run's interruption; approved, the call runs once, named in its receipt", async () => {
    const { agent, receipts, removed } = await setup(removeNotes)
    const first = await run(agent, "delete my notes")
    assert.lengthOf(first.interruptions, 1)
    assert.strictEqual(first.interruptions[0]!.name, "remove")
    assert.deepStrictEqual([removed, receipts], [[], []])
    first.state.approve(first.interruptions[0]!)
    const second = await run(agent, first.state)
    assert.strictEqual(second.finalOutput, "done")
    assert.deepStrictEqual(removed, ["notes.txt"])
    assert.deepStrictEqual(receipts.map((r) => [r.outcome, r.approval]), [[
      "ok",
      { decision: "allow", source: "approver", by: "openai-agents" }
    ]])
  })

  it("rejected, the tool never runs and no receipt says it was sent", async () => {
    const { agent, receipts, removed } = await setup(removeNotes)
    const first = await run(agent, "delete my notes")
    first.state.reject(first.interruptions[0]!)
    const second = await run(agent, first.state)
    assert.strictEqual(second.finalOutput, "done")
    assert.deepStrictEqual(removed, [])
    assert.isTrue(receipts.every((r) => !r.sent))
  })

  it("a model that reuses the approved call's id with other arguments gets nothing through", async () => {
    const reuse: Reply = { toolCalls: [{ name: "remove", args: { path: "secrets.txt" }, id: "call_0_0" }] }
    const { agent, removed } = await setup(removeNotes, (index) => (index === 1 ? reuse : { text: "done" }))
    const first = await run(agent, "delete my notes")
    first.state.approve(first.interruptions[0]!)
    // The SDK refuses the reused id itself; the pipeline would refuse it too (an approval is spent once).
    const second = await run(agent, first.state, { maxTurns: 4 }).then(() => undefined, (error: unknown) => error)
    assert.instanceOf(second, ModelBehaviorError)
    assert.deepStrictEqual(removed, ["notes.txt"])
  })
})
