/**
 * `approvals: "sdk"` and `interlockApproval` through the real `generateText` and its OpenAI provider, against a fake
 * Chat Completions server over real HTTP: the policy's Ask as the SDK's approval request, a person's answer in the
 * next request, and what an approval record that is not the person's lets through (nothing).
 */
import { createOpenAI } from "@ai-sdk/openai"
import { assert, describe, it } from "@effect/vitest"
import { Policy, type Receipt, Verdict } from "@interlock/core"
import { generateText, type ModelMessage, stepCountIs, streamText, tool } from "ai"
import { z } from "zod"
import { approvalOf } from "../src/vercel/ApprovalRecord.ts"
import { closeTools, interlockApproval, interlockTools } from "../src/vercel/index.ts"
import { fakeOpenAi, type Reply, toolMessages } from "./support/FakeOpenAi.ts"
import { closedAfterEach } from "./support/Governance.ts"

const open = closedAfterEach()

/** Asks before any `ai/remove`, with the operator's reason. */
const asksToRemove = Policy.rules({
  rules: [{ id: "removals", match: "ai/remove", decision: "ask", reason: "deleting needs a person" }],
  default: "deny"
})

/** A `remove` tool that records each path it deleted, governed with `approvals: "sdk"` and closed after the test. */
const governed = (options: { readonly hooks?: any } = {}) => {
  const removed: Array<string> = []
  const receipts: Array<Receipt> = []
  const tools = interlockTools({
    remove: tool({
      description: "Delete a file",
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => {
        removed.push(path)
        return `deleted ${path}`
      }
    })
  }, { ...options, policy: asksToRemove, approvals: "sdk", onReceipt: (receipt) => void receipts.push(receipt) })
  open.push({ close: () => closeTools(tools) })
  return { tools, removed, receipts }
}

/** A fake model: `first` on its first request, then `later(index)` (default: the text "done"). */
const model = async (first: Reply, later: (index: number) => Reply = () => ({ text: "done" })) => {
  const fake = await fakeOpenAi((_body, index) => (index === 0 ? first : later(index)))
  open.push(fake)
  return { fake, llm: createOpenAI({ baseURL: fake.url, apiKey: "test" }).chat("fake") }
}

const removeNotes: Reply = { toolCalls: [{ name: "remove", args: { path: "notes.txt" } }] }

/** The first request's answer, and the conversation a person's answer to its approval request continues. */
const askedThenAnswered = async (
  setup: ReturnType<typeof governed>,
  llm: Parameters<typeof generateText>[0]["model"],
  approved: boolean
) => {
  const prompt: Array<ModelMessage> = [{ role: "user", content: "delete my notes" }]
  const first = await generateText({
    model: llm,
    tools: setup.tools,
    toolApproval: interlockApproval(setup.tools),
    messages: prompt,
    stopWhen: stepCountIs(3)
  })
  const request = first.content.find((part) => part.type === "tool-approval-request")
  assert.isDefined(request)
  const answer: ModelMessage = {
    role: "tool",
    content: [{ type: "tool-approval-response", approvalId: request!.approvalId, approved }]
  }
  return { first, request: request!, messages: [...prompt, ...first.response.messages, answer] }
}

describe("approvals: \"sdk\" through generateText", () => {
  it("the policy's Ask is the SDK's approval request; approved, the call runs once, named in its receipt", async () => {
    const setup = governed()
    const { fake, llm } = await model(removeNotes)
    const { first, request, messages } = await askedThenAnswered(setup, llm, true)
    assert.strictEqual(request.reason, "deleting needs a person")
    assert.deepStrictEqual(setup.removed, [])
    assert.deepStrictEqual(setup.receipts, [])
    assert.strictEqual(first.finishReason, "tool-calls")

    const second = await generateText({ model: llm, tools: setup.tools, messages, stopWhen: stepCountIs(3) })
    assert.strictEqual(second.text, "done")
    assert.deepStrictEqual(setup.removed, ["notes.txt"])
    const [receipt] = setup.receipts
    assert.deepStrictEqual([receipt?.outcome, receipt?.sent, receipt?.approval], [
      "ok",
      true,
      { decision: "allow", source: "approver", by: "ai-sdk" }
    ])
    assert.include(toolMessages(fake.bodies[1]!)[0]!.content, "deleted notes.txt")

    // The same answer sent again is spent: the SDK runs the call once more, and the pipeline refuses it.
    await generateText({ model: llm, tools: setup.tools, messages, stopWhen: stepCountIs(3) })
    assert.deepStrictEqual(setup.removed, ["notes.txt"])
    assert.deepStrictEqual(setup.receipts.map((r) => r.outcome), ["ok", "denied"])
  })

  it("streamText: the stream ends with the approval request, and the approved call runs in the next one", async () => {
    const setup = governed()
    const { llm } = await model(removeNotes)
    const prompt: Array<ModelMessage> = [{ role: "user", content: "delete my notes" }]
    const first = streamText({
      model: llm,
      tools: setup.tools,
      toolApproval: interlockApproval(setup.tools),
      messages: prompt
    })
    const parts = []
    for await (const part of first.fullStream) parts.push(part)
    const request = parts.find((part) => part.type === "tool-approval-request")
    assert.strictEqual(request?.reason, "deleting needs a person")
    assert.deepStrictEqual(setup.removed, [])
    const answer: ModelMessage = {
      role: "tool",
      content: [{ type: "tool-approval-response", approvalId: request!.approvalId, approved: true }]
    }
    const messages = [...prompt, ...(await first.response).messages, answer]
    const second = streamText({ model: llm, tools: setup.tools, messages, stopWhen: stepCountIs(3) })
    assert.strictEqual(await second.text, "done")
    assert.deepStrictEqual(setup.removed, ["notes.txt"])
    assert.deepStrictEqual(setup.receipts.map((r) => r.approval?.by), ["ai-sdk"])
  })

  it("a person's no: the tool never runs, and no receipt claims it did", async () => {
    const setup = governed()
    const { llm } = await model(removeNotes)
    const { messages } = await askedThenAnswered(setup, llm, false)
    const second = await generateText({ model: llm, tools: setup.tools, messages, stopWhen: stepCountIs(3) })
    assert.strictEqual(second.text, "done")
    assert.deepStrictEqual(setup.removed, [])
    assert.isTrue(setup.receipts.every((r) => !r.sent))
  })

  it("without interlockApproval the Ask is denied, and the model is told which option is missing", async () => {
    const setup = governed()
    const { fake, llm } = await model(removeNotes)
    await generateText({ model: llm, tools: setup.tools, prompt: "delete my notes", stopWhen: stepCountIs(3) })
    assert.deepStrictEqual(setup.removed, [])
    assert.include(toolMessages(fake.bodies[1]!)[0]!.content, "toolApproval: interlockApproval(tools)")
    assert.deepStrictEqual(setup.receipts.map((r) => [r.outcome, r.approval?.source]), [["denied", "approver"]])
  })

  it("the probe runs the preToolCall hooks: a call a hook halts is not asked about", async () => {
    const setup = governed({
      hooks: {
        preToolCall: [{
          match: "ai/remove",
          id: "trash",
          run: () => Verdict.halt({ content: [{ type: "text", text: "moved to the trash instead" }] })
        }]
      }
    })
    const { fake, llm } = await model(removeNotes)
    const result = await generateText({
      model: llm,
      tools: setup.tools,
      toolApproval: interlockApproval(setup.tools),
      prompt: "delete my notes",
      stopWhen: stepCountIs(3)
    })
    assert.isUndefined(result.content.find((part) => part.type === "tool-approval-request"))
    assert.strictEqual(result.text, "done")
    assert.deepStrictEqual(setup.removed, [])
    assert.include(toolMessages(fake.bodies[1]!)[0]!.content, "moved to the trash instead")
  })

  it(
    "a model that reuses an approved call's id, with the same or other arguments, gets nothing through",
    async () => {
      const setup = governed()
      const reuse = (path: string): Reply => ({ toolCalls: [{ name: "remove", args: { path }, id: "call_0_0" }] })
      const { llm } = await model(removeNotes, (index) => (index === 1 ? reuse("notes.txt") : index === 2
        ? reuse("secrets.txt")
        : { text: "done" }))
      const { messages } = await askedThenAnswered(setup, llm, true)
      // No toolApproval here, so that the reused ids reach the governed execute rather than a new approval request.
      await generateText({ model: llm, tools: setup.tools, messages, stopWhen: stepCountIs(4) })
      assert.deepStrictEqual(setup.removed, ["notes.txt"])
      assert.deepStrictEqual(setup.receipts.map((r) => r.outcome), ["ok", "denied", "denied"])
    }
  )

  it("interlockApproval refuses tools that interlockTools did not make with approvals: \"sdk\"", () => {
    const plain = { remove: tool({ inputSchema: z.object({ path: z.string() }), execute: async () => "x" }) }
    assert.throws(() => interlockApproval(plain), /approvals: "sdk"/)
  })
})

describe("approvalOf", () => {
  const call = { type: "tool-call", toolCallId: "c1", toolName: "remove", input: { path: "a" } } as const
  const request = { type: "tool-approval-request", approvalId: "ap1", toolCallId: "c1" } as const
  const answer = (approved: boolean, approvalId = "ap1"): ModelMessage => ({
    role: "tool",
    content: [{ type: "tool-approval-response", approvalId, approved }]
  })
  const history = (...parts: Array<any>): Array<ModelMessage> => [
    { role: "user", content: "go" },
    { role: "assistant", content: parts }
  ]

  it("finds the person's approval of exactly this call", () => {
    assert.strictEqual(approvalOf([...history(call, request), answer(true)], "c1", "remove", { path: "a" }), "ap1")
  })

  it("no record: a no, other arguments or tool, an automatic approval, a call held twice, an old answer", () => {
    const cases: Array<[Array<ModelMessage>, unknown, string]> = [
      [[...history(call, request), answer(false)], { path: "a" }, "remove"],
      [[...history(call, request), answer(true)], { path: "b" }, "remove"],
      [[...history(call, request), answer(true)], { path: "a" }, "read"],
      [[...history(call, { ...request, isAutomatic: true }), answer(true)], { path: "a" }, "remove"],
      [[...history(call, call, request), answer(true)], { path: "a" }, "remove"],
      [[...history(call, request), answer(true, "other")], { path: "a" }, "remove"],
      [[...history(call, request), answer(true), { role: "user", content: "and now?" }], { path: "a" }, "remove"],
      [[...history(call), answer(true)], { path: "a" }, "remove"]
    ]
    for (const [messages, input, tool] of cases) assert.isUndefined(approvalOf(messages, "c1", tool, input))
  })
})
