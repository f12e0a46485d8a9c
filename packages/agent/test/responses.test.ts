/** The OpenAI Responses API provider, whole and streamed, against fake servers over real HTTP. */
import { assert, describe, it } from "@effect/vitest"
import { Policy } from "@interlock/core"
import { Effect } from "effect"
import { Agent } from "../src/index.ts"
import { fake, responses, turns } from "./support/FakeLlm.ts"
import { responsesFrames } from "./support/SseScripts.ts"
import { only, resultOf, streamOn } from "./support/StreamRun.ts"
import { add } from "./support/tools.ts"

const whole = (output: ReadonlyArray<unknown>) => ({
  json: {
    id: "resp_1",
    object: "response",
    model: "gpt-x",
    status: "completed",
    output,
    usage: { input_tokens: 6, output_tokens: 3, total_tokens: 9 }
  }
})

describe("OpenAI Responses", () => {
  it.effect("a run: function_call items run through the pipeline, their outputs go back as input items", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(
        whole([{
          type: "function_call",
          id: "fc_1",
          call_id: "call_1",
          name: "add",
          arguments: "{\"a\":2,\"b\":5}",
          status: "completed"
        }]),
        whole([{
          type: "message",
          id: "msg_1",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "7", annotations: [] }]
        }])
      ))
      const result = yield* Agent.run("2+5?", {
        model: responses(server),
        tools: [add],
        policy: Policy.allowAll,
        system: "be exact"
      })
      assert.deepStrictEqual([result.status, result.text, result.toolCalls[0].output], ["done", "7", "7"])
      assert.deepStrictEqual([result.usage.inputTokens, result.usage.outputTokens], [12, 6])
      const [first, second] = server.requests
      assert.strictEqual(first.path, "/v1/responses")
      assert.strictEqual(first.headers.authorization, "Bearer test-key")
      assert.deepStrictEqual(first.body.input, [{ role: "system", content: "be exact" }, {
        role: "user",
        content: "2+5?"
      }])
      assert.deepStrictEqual(first.body.tools.map((t: any) => [t.type, t.name, t.parameters.type]), [[
        "function",
        "add",
        "object"
      ]])
      assert.deepStrictEqual(second.body.input.slice(2), [
        { type: "function_call", call_id: "call_1", name: "add", arguments: "{\"a\":2,\"b\":5}" },
        { type: "function_call_output", call_id: "call_1", output: "7" }
      ])
    }))

  it.effect("a stream: output_text deltas, function_call_arguments deltas, the call run once complete", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(
        {
          sse: responsesFrames(["adding"], [{ id: "call_9", name: "add", pieces: ["{\"a\":", "1,\"b\"", ":1}"] }]),
          split: 17
        },
        { sse: responsesFrames(["it is ", "2"]) }
      ))
      const events = yield* streamOn(server, "1+1?", { model: responses(server), tools: [add] })
      assert.deepStrictEqual(only(events, "TextDelta").map((e) => e.text), ["adding", "it is ", "2"])
      assert.deepStrictEqual(only(events, "ToolInputDelta").map((e) => e.delta), ["{\"a\":", "1,\"b\"", ":1}"])
      assert.deepStrictEqual(only(events, "ToolCall").map((e) => [e.id, e.args]), [["call_9", { a: 1, b: 1 }]])
      assert.deepStrictEqual(only(events, "TurnEnd").map((e) => e.finish), ["tool-calls", "stop"])
      const result = resultOf(events)
      assert.deepStrictEqual([result.status, result.text, result.toolCalls[0].output], ["done", "it is 2", "2"])
      assert.deepStrictEqual([result.usage.inputTokens, result.usage.outputTokens], [18, 8])
      assert.strictEqual(server.requests[0].body.stream, true)
    }))

  it.effect("response.failed ends the run with an error; a stream with no terminal event is cut short", () =>
    Effect.gen(function*() {
      const failed = [
        ...responsesFrames(["par"]).slice(0, 3),
        {
          event: "response.failed",
          data: {
            type: "response.failed",
            response: { status: "failed", error: { code: "server_error", message: "x" } }
          }
        }
      ]
      const cut = responsesFrames(["half"]).slice(0, -1)
      const server = yield* fake(turns({ sse: failed }, { sse: cut }))
      const first = resultOf(yield* streamOn(server, "hi", { model: responses(server) }))
      assert.deepStrictEqual([first.status, (first.error as any)?.reason], ["error", "InternalProviderError"])
      const second = resultOf(yield* streamOn(server, "hi", { model: responses(server) }))
      assert.deepStrictEqual([second.status, (second.error as any)?.reason], ["error", "InvalidResponseError"])
    }))
})
