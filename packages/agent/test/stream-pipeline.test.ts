/**
 * A streamed tool call goes through the whole pipeline: it runs only once its input is complete
 * and has passed the pre-hooks and the policy. Its input deltas are shown, never executed.
 */
import { assert, describe, it } from "@effect/vitest"
import { Policy, Verdict } from "@interlock/core"
import { Effect } from "effect"
import { anthropic, fake, turns } from "./support/FakeLlm.ts"
import { anthropicFrames, openAiFrames } from "./support/SseScripts.ts"
import { only, resultOf, streamOn } from "./support/StreamRun.ts"
import { payTool } from "./support/tools.ts"

const denyPay = Policy.rules({ rules: [{ match: "local/pay", decision: "deny" }], default: "allow" })

describe("streamed tool calls and the pipeline", () => {
  it.effect("a denied streamed call never executes: the tool's record stays empty, the model gets the denial", () =>
    Effect.gen(function*() {
      const { paid, pay } = payTool()
      const server = yield* fake(turns(
        { sse: openAiFrames([], [{ id: "p1", name: "pay", pieces: ["{\"amo", "unt\": 1", "000}"] }]), split: 5 },
        { sse: openAiFrames(["I could not pay"]) }
      ))
      const events = yield* streamOn(server, "pay 1000", { tools: [pay], policy: denyPay })
      assert.deepStrictEqual(paid, [])
      assert.deepStrictEqual(only(events, "ToolInputDelta").map((e) => e.delta).join(""), "{\"amount\": 1000}")
      const [result] = only(events, "ToolResult")
      assert.deepStrictEqual(
        [
          result.call.isError,
          result.call.receipt?.outcome,
          result.call.receipt?.policy?.decision,
          result.call.receipt?.sent
        ],
        [true, "denied", "deny", false]
      )
      assert.strictEqual(resultOf(events).text, "I could not pay")
      const answer = server.requests[1].body.messages.find((m: any) => m.role === "tool")
      assert.strictEqual(answer.tool_call_id, "p1")
    }))

  it.effect("the pre-hooks see each call once, whole, after the model finished writing it", () =>
    Effect.gen(function*() {
      const { paid, pay } = payTool()
      const seen: Array<unknown> = []
      const server = yield* fake(turns(
        { sse: anthropicFrames([], [{ id: "toolu_p", name: "pay", pieces: ["{\"amount\"", ": 7", "}"] }]), split: 6 },
        { sse: anthropicFrames(["paid"]) }
      ))
      const events = yield* streamOn(server, "pay 7", {
        model: anthropic(server),
        tools: [pay],
        hooks: {
          preToolCall: [{
            match: "pay",
            run: (call: { readonly args: unknown }) => (seen.push(call.args), Verdict.rewrite({ args: { amount: 1 } }))
          }]
        }
      })
      assert.deepStrictEqual(seen, [{ amount: 7 }])
      assert.deepStrictEqual(paid, [1], "the tool ran once, with the rewritten input")
      const tags = events.map((e) => e._tag)
      assert.isBelow(tags.lastIndexOf("ToolInputDelta"), tags.indexOf("ToolCall"))
      assert.isBelow(tags.indexOf("ToolCall"), tags.indexOf("ToolResult"))
      assert.strictEqual(only(events, "ToolResult")[0].call.receipt?.outcome, "ok")
    }))
})
