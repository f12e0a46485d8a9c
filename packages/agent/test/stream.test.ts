/** Agent.stream: the events of a run, and `run` as their fold, with an in-process effect/ai model. */
import { assert, describe, it } from "@effect/vitest"
import { Policy } from "@interlock/core"
import { Effect, Layer, Stream } from "effect"
import { LanguageModel, type Response } from "effect/ai"
import { Agent, type StreamEvent } from "../src/index.ts"
import { add } from "./support/tools.ts"

const usage = {
  inputTokens: { total: 3, uncached: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 2, text: undefined, reasoning: undefined }
}

/** One script, answered whole (generateText) or in parts (streamText): a call to add, then "it is 3". */
const scripted = Layer.effect(
  LanguageModel.LanguageModel,
  LanguageModel.make({
    generateText: (options) =>
      Effect.succeed(
        options.prompt.content.at(-1)?.role === "tool"
          ? [{ type: "text", text: "it is 3" }, { type: "finish", reason: "stop", usage }]
          : [
            { type: "tool-call", id: "c1", name: "add", params: { a: 1, b: 2 } },
            { type: "finish", reason: "tool-calls", usage }
          ] as Array<Response.PartEncoded>
      ),
    streamText: (options) =>
      Stream.fromIterable<Response.StreamPartEncoded>(
        options.prompt.content.at(-1)?.role === "tool"
          ? [
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "it " },
            { type: "text-delta", id: "t", delta: "is 3" },
            { type: "text-end", id: "t" },
            { type: "finish", reason: "stop", usage }
          ]
          : [
            { type: "tool-params-start", id: "c1", name: "add" },
            { type: "tool-params-delta", id: "c1", delta: "{\"a\":1," },
            { type: "tool-params-delta", id: "c1", delta: "\"b\":2}" },
            { type: "tool-params-end", id: "c1" },
            { type: "tool-call", id: "c1", name: "add", params: { a: 1, b: 2 } },
            { type: "finish", reason: "tool-calls", usage }
          ]
      )
  })
)

const options = { model: scripted, tools: [add], policy: Policy.allowAll }

describe("Agent.stream", () => {
  it.effect("streams deltas, tool calls, results with receipts and turn boundaries; the RunResult comes last", () =>
    Effect.gen(function*() {
      const events = Array.from(yield* Stream.runCollect(Agent.stream("1+2?", options)))
      assert.deepStrictEqual(events.map((e) => e._tag), [
        "TurnStart",
        "ToolInputStart",
        "ToolInputDelta",
        "ToolInputDelta",
        "ToolCall",
        "ToolResult",
        "TurnEnd",
        "TurnStart",
        "TextDelta",
        "TextDelta",
        "TurnEnd",
        "Result"
      ])
      const byTag = <T extends StreamEvent.StreamEvent["_tag"]>(tag: T) =>
        events.filter((e): e is Extract<StreamEvent.StreamEvent, { _tag: T }> => e._tag === tag)
      assert.deepStrictEqual(byTag("ToolCall")[0], {
        _tag: "ToolCall",
        turn: 0,
        id: "c1",
        name: "add",
        args: { a: 1, b: 2 }
      })
      const result = byTag("ToolResult")[0]
      assert.deepStrictEqual([result.call.output, result.call.receipt?.outcome, result.call.receipt?.sent], [
        "3",
        "ok",
        true
      ])
      assert.deepStrictEqual(byTag("TextDelta").map((e) => e.text), ["it ", "is 3"])
      assert.deepStrictEqual(byTag("TurnEnd").map((e) => [e.turn, e.finish]), [[0, "tool-calls"], [1, "stop"]])
      const final = byTag("Result")[0].result
      assert.deepStrictEqual([final.status, final.text, final.turns, final.toolCallCount], ["done", "it is 3", 2, 1])
    }))

  it.effect("run is the fold of stream: the same RunResult, whether the answers came whole or streamed", () =>
    Effect.gen(function*() {
      const ran = yield* Agent.run("1+2?", options)
      const streamed = yield* Stream.runLast(Agent.stream("1+2?", options))
      assert.strictEqual(streamed._tag, "Some")
      const last = (streamed as any).value as StreamEvent.StreamEvent
      assert.strictEqual(last._tag, "Result")
      const folded = (last as Extract<StreamEvent.StreamEvent, { _tag: "Result" }>).result
      const view = (r: typeof ran) => ({
        status: r.status,
        text: r.text,
        turns: r.turns,
        usage: [r.usage.inputTokens, r.usage.outputTokens],
        calls: r.toolCalls.map((c) => [c.id, c.name, c.args, c.output, c.isError, c.turn, c.receipt?.outcome]),
        messages: r.messages.map((m) => [m.role, JSON.stringify(m.content)])
      })
      assert.deepStrictEqual(view(folded), view(ran))
    }))
})
