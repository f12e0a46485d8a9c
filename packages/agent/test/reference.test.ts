/** The reference seed's own cases (toolnexus hooks), ported: a fake OpenAI server over real HTTP. */
import { assert, describe, it } from "@effect/vitest"
import { NativeTool, Policy, Verdict } from "@interlock/core"
import { Deferred, Effect, Schema } from "effect"
import { Agent, AgentVerdict } from "../src/index.ts"
import { fake, openAi, runOn, text, toolCalls, turns } from "./support/FakeLlm.ts"
import { add, blocked, echo, inFlightTool } from "./support/tools.ts"

const policy = Policy.rules({
  rules: [{ id: "no-blocked", match: "local/blocked", decision: "deny", reason: "denied by policy" }],
  default: "allow"
})

describe("reference cases", () => {
  it.effect("before-tool deny and an after-tool wrap: add gives [2], blocked is denied and not wrapped", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(
        toolCalls([{ id: "c1", name: "add", args: { a: 1, b: 1 } }, { id: "c2", name: "blocked", args: {} }]),
        text("done")
      ))
      const result = yield* Agent.run("add and block", {
        model: openAi(server),
        tools: [add, blocked],
        policy,
        hooks: {
          postToolCall: [{
            match: "*",
            id: "wrap",
            run: (_call, result) => Verdict.replace({ content: [{ type: "text", text: `[${result.text}]` }] })
          }]
        }
      })
      assert.strictEqual(result.status, "done")
      assert.strictEqual(result.text, "done")
      const [first, second] = result.toolCalls
      assert.strictEqual(first.output, "[2]")
      assert.isFalse(first.isError)
      assert.include(second.output, "denied by policy")
      assert.isTrue(second.isError)
      assert.notInclude(second.output, "[")
      assert.strictEqual(second.receipt?.outcome, "denied")
      assert.strictEqual(first.receipt?.policy?.decision, "allow")
      // The denied call's result went back to the model as a failed tool result.
      const toolMessages = server.requests[1].body.messages.filter((m: any) => m.role === "tool")
      assert.deepStrictEqual(toolMessages.map((m: any) => m.tool_call_id), ["c1", "c2"])
    }))

  it.effect("beforeModel returning tools [] sends no tools and no tool_choice, for the rest of the run", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(toolCalls([{ id: "c1", name: "add", args: { a: 1, b: 1 } }]), text("ok")))
      const result = yield* runOn(server, "hi", {
        tools: [add, echo],
        hooks: {
          beforeModel: [({ turn }) => (turn === 0 ? AgentVerdict.rewrite({ tools: [] }) : AgentVerdict.continue)]
        }
      })
      assert.strictEqual(result.status, "done")
      for (const { body } of server.requests) {
        assert.isFalse("tools" in body)
        assert.isFalse("tool_choice" in body)
      }
      // A call to a tool that was taken away is not run.
      assert.strictEqual(result.toolCalls[0].output, "Tool not found: add")
    }))

  it.effect("beforeModel dropping one tool sends only the other", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(text("ok")))
      yield* runOn(server, "hi", {
        tools: [add, echo],
        hooks: { beforeModel: [({ tools }) => AgentVerdict.rewrite({ tools: tools.filter((t) => t.name !== "add") })] }
      })
      const body = server.requests[0].body
      assert.deepStrictEqual(body.tools.map((t: any) => t.function.name), ["echo"])
      assert.strictEqual(body.tool_choice, "auto")
    }))

  it.effect("afterModel fires on turns [0, 1] and sees the usage", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(
        toolCalls([{ id: "c1", name: "add", args: { a: 1, b: 2 } }], { prompt_tokens: 4, completion_tokens: 2 }),
        text("3", { prompt_tokens: 3, completion_tokens: 2 })
      ))
      const seen: Array<[number, number | undefined]> = []
      const result = yield* runOn(server, "1+2", {
        tools: [add],
        hooks: {
          afterModel: [({ response, turn }) => {
            seen.push([turn, (response.usage.inputTokens.total ?? 0) + (response.usage.outputTokens.total ?? 0)])
            return AgentVerdict.continue
          }]
        }
      })
      assert.deepStrictEqual(seen, [[0, 6], [1, 5]])
      assert.strictEqual(result.text, "3")
    }))

  it.effect("an args rewrite gives \"echoed: rewritten\"", () =>
    Effect.gen(function*() {
      const server = yield* fake(
        turns(toolCalls([{ id: "c1", name: "echo", args: { text: "original" } }]), text("fine"))
      )
      const result = yield* runOn(server, "echo", {
        tools: [echo],
        hooks: { preToolCall: [{ match: "echo", run: () => Verdict.rewrite({ args: { text: "rewritten" } }) }] }
      })
      assert.strictEqual(result.toolCalls[0].output, "echoed: rewritten")
      const toolMessage = server.requests[1].body.messages.find((m: any) => m.role === "tool")
      assert.strictEqual(toolMessage.content, "echoed: rewritten")
    }))

  it.effect("two parallel calls reach a peak of 2 in flight, results in order c1, c2", () =>
    Effect.gen(function*() {
      const bothIn = yield* Deferred.make<void>()
      const secondDone = yield* Deferred.make<void>()
      const slow = inFlightTool("slow", "r", (n, inFlight) =>
        Effect.gen(function*() {
          if (inFlight === 2) yield* Deferred.succeed(bothIn, undefined)
          yield* Deferred.await(bothIn)
          // The first call finishes last, so completion order differs from call order.
          if (n === 1) yield* Deferred.await(secondDone)
          else yield* Deferred.succeed(secondDone, undefined)
        }))
      const server = yield* fake(
        turns(
          toolCalls([{ id: "c1", name: "slow", args: { n: 1 } }, { id: "c2", name: "slow", args: { n: 2 } }]),
          text("ok")
        )
      )
      const result = yield* runOn(server, "go", { tools: [slow.tool] })
      assert.strictEqual(slow.peak(), 2)
      assert.deepStrictEqual(result.toolCalls.map((c) => [c.id, c.output]), [["c1", "r1"], ["c2", "r2"]])
      const toolMessages = server.requests[1].body.messages.filter((m: any) => m.role === "tool")
      assert.deepStrictEqual(toolMessages.map((m: any) => m.tool_call_id), ["c1", "c2"])
    }))

  it.effect("maxTurns 2 with endless tool calls: turns 2, status incomplete, text \"\" and 2 calls", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(toolCalls([{ id: "c1", name: "add", args: { a: 1, b: 1 } }])))
      const result = yield* runOn(server, "loop", { tools: [add], maxTurns: 2 })
      assert.strictEqual(result.turns, 2)
      assert.strictEqual(result.status, "incomplete")
      assert.strictEqual(result.text, "")
      assert.strictEqual(result.toolCallCount, 2)
      assert.deepStrictEqual(result.limit, { kind: "maxTurns", value: 2 })
      assert.strictEqual(server.requests.length, 2)
    }))

  it.effect("maxTurns defaults to 10", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(toolCalls([{ id: "c1", name: "add", args: { a: 1, b: 1 } }])))
      const result = yield* runOn(server, "loop", { tools: [add] })
      assert.deepStrictEqual([result.status, result.turns, server.requests.length], ["incomplete", 10, 10])
    }))

  it.effect("the calls of a turn run at most `concurrency` at a time", () =>
    Effect.gen(function*() {
      const step = inFlightTool("step", "s", () => Effect.andThen(Effect.yieldNow, Effect.yieldNow))
      const calls = [1, 2, 3, 4, 5].map((n) => ({ id: `c${n}`, name: "step", args: { n } }))
      const server = yield* fake(turns(toolCalls(calls), text("ok")))
      const result = yield* runOn(server, "go", { tools: [step.tool], concurrency: 2 })
      assert.strictEqual(step.peak(), 2)
      assert.deepStrictEqual(result.toolCalls.map((c) => c.output), ["s1", "s2", "s3", "s4", "s5"])
    }))

  it.effect("an unknown tool gives an isError result \"Tool not found: NAME\"", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(toolCalls([{ id: "c1", name: "nope", args: {} }]), text("ok")))
      const result = yield* runOn(server, "x", { tools: [add] })
      assert.strictEqual(result.toolCalls[0].output, "Tool not found: nope")
      assert.isTrue(result.toolCalls[0].isError)
      assert.isUndefined(result.toolCalls[0].receipt)
    }))

  it.effect("a tool that fails gives an isError result", () =>
    Effect.gen(function*() {
      const broken = NativeTool.make({
        name: "broken",
        parameters: Schema.Struct({}),
        run: () => Effect.fail(new Error("disk on fire"))
      })
      const server = yield* fake(turns(toolCalls([{ id: "c1", name: "broken", args: {} }]), text("ok")))
      const result = yield* runOn(server, "x", { tools: [broken] })
      assert.isTrue(result.toolCalls[0].isError)
      assert.strictEqual(result.toolCalls[0].receipt?.outcome, "tool_error")
      assert.strictEqual(result.status, "done")
    }))
})
