/** Both providers stream: their SSE wire formats, read from fake servers over real HTTP. */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { withClock } from "./support/clock.ts"
import { anthropic, fake, turns } from "./support/FakeLlm.ts"
import { anthropicFrames, openAiFrames } from "./support/SseScripts.ts"
import { only, resultOf, streamOn } from "./support/StreamRun.ts"
import { add, echo } from "./support/tools.ts"

describe("OpenAI Chat Completions SSE", () => {
  it.effect("text deltas arrive as they are written; the request asks for a stream with usage", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns({ sse: openAiFrames(["Hel", "lo, ", "world"]), split: 7 }))
      const events = yield* streamOn(server, "hi")
      assert.deepStrictEqual(only(events, "TextDelta").map((e) => e.text), ["Hel", "lo, ", "world"])
      const result = resultOf(events)
      assert.deepStrictEqual([result.status, result.text], ["done", "Hello, world"])
      assert.deepStrictEqual([result.usage.inputTokens, result.usage.outputTokens], [5, 3])
      const seen = server.requests[0]
      assert.deepStrictEqual([seen.body.stream, seen.body.stream_options], [true, { include_usage: true }])
      assert.strictEqual(seen.headers.accept, "text/event-stream")
      assert.strictEqual(seen.headers.authorization, "Bearer test-key")
    }))

  it.effect("tool calls are put together by index from interleaved pieces, and run once complete", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(
        {
          sse: openAiFrames([], [
            { id: "call_a", name: "add", pieces: ["{\"a\":", "40,", "\"b\":2}"] },
            { id: "call_e", name: "echo", pieces: ["{\"text\"", ":\"hi\"}"] }
          ]),
          split: 11
        },
        { sse: openAiFrames(["42 ", "and hi"]) }
      ))
      const events = yield* streamOn(server, "go", { tools: [add, echo] })
      assert.deepStrictEqual(only(events, "ToolInputStart").map((e) => [e.id, e.name]), [["call_a", "add"], [
        "call_e",
        "echo"
      ]])
      assert.deepStrictEqual(
        only(events, "ToolInputDelta").filter((e) => e.id === "call_a").map((e) => e.delta).join(""),
        "{\"a\":40,\"b\":2}"
      )
      assert.deepStrictEqual(only(events, "ToolCall").map((e) => [e.id, e.args]), [["call_a", { a: 40, b: 2 }], [
        "call_e",
        { text: "hi" }
      ]])
      const results = only(events, "ToolResult").map((e) => [e.call.id, e.call.output, e.call.receipt?.outcome])
      assert.sameDeepMembers(results, [["call_a", "42", "ok"], ["call_e", "echoed: hi", "ok"]])
      // Every call's input was complete before any of them ran.
      const tags = events.map((e) => e._tag)
      assert.isBelow(tags.lastIndexOf("ToolInputDelta"), tags.indexOf("ToolResult"))
      const result = resultOf(events)
      assert.deepStrictEqual([result.status, result.text, result.toolCallCount], ["done", "42 and hi", 2])
      const replay = server.requests[1].body.messages
      assert.deepStrictEqual(
        replay[1].tool_calls.map((c: any) => [c.id, c.function.name, JSON.parse(c.function.arguments)]),
        [["call_a", "add", { a: 40, b: 2 }], ["call_e", "echo", { text: "hi" }]]
      )
    }))

  it.effect("a body that ends before the answer did is an error, not a partial answer", () =>
    Effect.gen(function*() {
      const frames = openAiFrames(["half an ans"]).slice(0, 2)
      const server = yield* fake(turns({ sse: frames }))
      const result = resultOf(yield* streamOn(server, "hi", { retry: { retries: 0 } }))
      assert.deepStrictEqual([result.status, (result.error as any)?.reason], ["error", "InvalidResponseError"])
    }))

  it.effect("a server that ends the body after the finish, without [DONE], said everything", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns({ sse: openAiFrames(["fine"], [], { done: false }) }))
      const result = resultOf(yield* streamOn(server, "hi"))
      assert.deepStrictEqual([result.status, result.text], ["done", "fine"])
    }))

  it.effect("a 429 before the stream starts is retried like any request", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns({ status: 429, json: { error: {} } }, { sse: openAiFrames(["ok"]) }))
      const result = resultOf(yield* withClock(streamOn(server, "hi")))
      assert.deepStrictEqual([result.status, result.text, server.requests.length], ["done", "ok", 2])
    }))
})

describe("Anthropic Messages SSE", () => {
  it.effect("message_start, text and tool_use blocks (input_json_delta), message_delta, message_stop", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(
        {
          sse: anthropicFrames(["let me ", "add"], [{
            id: "toolu_1",
            name: "add",
            pieces: ["{\"a\": 2", ", \"b\": 3}"]
          }]),
          split: 13
        },
        { sse: anthropicFrames(["it is ", "5"], [], { input: 20, output: 2 }) }
      ))
      const events = yield* streamOn(server, "2+3?", { model: anthropic(server), tools: [add] })
      assert.deepStrictEqual(only(events, "TextDelta").map((e) => e.text), ["let me ", "add", "it is ", "5"])
      assert.deepStrictEqual(only(events, "ToolInputDelta").map((e) => e.delta), ["{\"a\": 2", ", \"b\": 3}"])
      assert.deepStrictEqual(only(events, "ToolCall").map((e) => [e.id, e.name, e.args]), [["toolu_1", "add", {
        a: 2,
        b: 3
      }]])
      assert.deepStrictEqual(only(events, "TurnEnd").map((e) => e.finish), ["tool-calls", "stop"])
      const result = resultOf(events)
      assert.deepStrictEqual([result.status, result.text, result.toolCalls[0].output], ["done", "it is 5", "5"])
      assert.deepStrictEqual([result.usage.inputTokens, result.usage.outputTokens], [31, 9])
      const [first, second] = server.requests
      assert.deepStrictEqual([first.path, first.body.stream, first.headers["x-api-key"]], [
        "/v1/messages",
        true,
        "test-key"
      ])
      assert.deepStrictEqual(second.body.messages[1].content, [{ type: "text", text: "let me add" }, {
        type: "tool_use",
        id: "toolu_1",
        name: "add",
        input: { a: 2, b: 3 }
      }])
    }))

  it.effect("an error event ends the run with an error naming the provider's error type only", () =>
    Effect.gen(function*() {
      const frames = [
        ...anthropicFrames(["par"]).slice(0, 4),
        {
          event: "error",
          data: { type: "error", error: { type: "overloaded_error", message: "sk-secret Overloaded" } }
        }
      ]
      const server = yield* fake(turns({ sse: frames }))
      const events = yield* streamOn(server, "hi", { model: anthropic(server) })
      const result = resultOf(events)
      assert.deepStrictEqual([result.status, (result.error as any)?.reason], ["error", "InternalProviderError"])
      assert.notInclude(JSON.stringify(events), "sk-secret")
      assert.strictEqual(server.requests.length, 1, "a stream that showed text is not retried")
    }))
})
