/** Ask without an approver suspends the run; resume runs the real tool once, bound to the call's digest. */
import { assert, describe, it } from "@effect/vitest"
import { Approvals, Policy, Verdict } from "@interlock/core"
import { Effect, Redacted } from "effect"
import { Agent, RunState, RunStateSeal } from "../src/index.ts"
import { fake, openAi, text, toolCalls } from "./support/FakeLlm.ts"
import { add, payTool } from "./support/tools.ts"

const setup = Effect.gen(function*() {
  const { paid, pay } = payTool()
  const server = yield* fake((body) => {
    const answered = body.messages.filter((m: any) => m.role === "tool").length
    return answered === 0
      ? toolCalls([{ id: "c1", name: "pay", args: { amount: 5 } }, { id: "c2", name: "add", args: { a: 1, b: 1 } }])
      : text("all settled")
  })
  const options = {
    // One key for the suspending and the resuming agent (Agent.run and Agent.resume each build one).
    stateKey: Redacted.make("suspend-test-state-key-0123456789abcdef"),
    model: openAi(server),
    tools: [pay, add],
    policy: Policy.rules({
      rules: [{ id: "ask-pay", match: "pay", decision: "ask" as const, reason: "payments need a human" }],
      default: "allow"
    })
  }
  return { paid, server, options }
})

describe("suspension and resume", () => {
  it.effect(
    "Ask without an approver ends the run pending, with a serializable state; approve runs the tool once " +
      "and goes on",
    () =>
      Effect.gen(function*() {
        const { paid, server, options } = yield* setup
        const first = yield* Agent.run("pay and add", options)
        assert.strictEqual(first.status, "pending")
        assert.deepStrictEqual(paid, [])
        const state = first.state!
        assert.deepStrictEqual(state.slots.map((slot) => [slot.constructor.name, slot.id]), [["PendingCall", "c1"], [
          "SettledCall",
          "c2"
        ]])
        assert.deepStrictEqual(first.toolCalls.map((c) => [c.id, c.output]), [["c2", "2"]])
        assert.strictEqual(server.requests.length, 1)

        // Across a process boundary: JSON out, JSON in.
        const json = RunState.toJson(state)
        assert.notInclude(json, "test-key")
        const restored = yield* RunState.fromJson(json)

        const resumed = yield* Agent.resume(restored, "approve", options)
        assert.strictEqual(resumed.status, "done")
        assert.strictEqual(resumed.text, "all settled")
        assert.deepStrictEqual(paid, [5])
        assert.deepStrictEqual(resumed.toolCalls.map((c) => [c.id, c.output]), [["c2", "2"], ["c1", "paid 5"]])
        const approved = resumed.toolCalls.find((c) => c.id === "c1")!
        assert.deepStrictEqual(approved.receipt?.approval, { decision: "allow", source: "remembered" })
        const toolMessages = server.requests[1].body.messages.filter((m: any) => m.role === "tool")
        assert.deepStrictEqual(toolMessages.map((m: any) => [m.tool_call_id, m.content]), [["c1", "paid 5"], [
          "c2",
          "2"
        ]])
      })
  )

  it.effect("a resumed state with an edited call needs new approval: the tool does not run", () =>
    Effect.gen(function*() {
      const { paid, options } = yield* setup
      const first = yield* Agent.run("pay and add", options)
      const raw = JSON.parse(RunState.toJson(first.state!))
      raw.slots.find((slot: any) => slot.id === "c1").args.amount = 500
      const edited = JSON.stringify(raw)
      // Sealed again by the key's holder: the digest binding still refuses the edited call.
      const resealed = yield* RunStateSeal.seal(options.stateKey, yield* RunState.fromJson(edited))
      const resumed = yield* Agent.resume(resealed, "approve", options)
      assert.strictEqual(resumed.status, "pending")
      assert.deepStrictEqual(paid, [])
      const pending = resumed.state!.slots.find((slot) => slot.id === "c1") as any
      assert.deepStrictEqual(pending.args, { amount: 500 })
      assert.notStrictEqual(pending.digest, (first.state!.slots.find((slot) => slot.id === "c1") as any).digest)
    }))

  it.effect("deny answers the model with the refusal and goes on; the tool never runs", () =>
    Effect.gen(function*() {
      const { paid, server, options } = yield* setup
      const first = yield* Agent.run("pay and add", options)
      const resumed = yield* Agent.resume(first.state!, { c1: "deny" }, options)
      assert.strictEqual(resumed.status, "done")
      assert.deepStrictEqual(paid, [])
      const denied = resumed.toolCalls.find((c) => c.id === "c1")!
      assert.isTrue(denied.isError)
      assert.include(denied.output, "approval denied")
      assert.include(JSON.stringify(server.requests[1].body.messages), "approval denied")
    }))

  it.effect("with an approver the run does not suspend: the approver answers", () =>
    Effect.gen(function*() {
      const { paid, options } = yield* setup
      const result = yield* Agent.run("pay and add", {
        ...options,
        approvals: Approvals.layer({ approver: () => ({ decision: "allow" as const }) })
      })
      assert.strictEqual(result.status, "done")
      assert.deepStrictEqual(paid, [5])
      assert.strictEqual(result.toolCalls.find((c) => c.id === "c1")?.receipt?.approval?.source, "approver")
    }))

  it.effect("the approval is bound to the digest of the final call, after pre-hook rewrites", () =>
    Effect.gen(function*() {
      const { paid, options } = yield* setup
      const capped = {
        ...options,
        hooks: { preToolCall: [{ match: "pay", run: () => Verdict.rewrite({ args: { amount: 1 } }) }] }
      }
      const first = yield* Agent.run("pay and add", capped)
      assert.strictEqual(first.status, "pending")
      const resumed = yield* Agent.resume(first.state!, "approve", capped)
      assert.strictEqual(resumed.status, "done")
      assert.deepStrictEqual(paid, [1])
    }))

  it.effect("a malformed state is an InvalidRunState", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(RunState.fromJson("{\"version\":2}"))
      assert.strictEqual(error._tag, "InvalidRunState")
    }))
})
