/**
 * An approver's attribution (how and by whom) reaches the receipt exactly as given, and an answer
 * whose attribution is junk denies like any other junk answer: the call is never sent.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Schema, Scope } from "effect"
import { TestClock } from "effect/testing"
import { Approvals, Interlock, Policy, ToolCalls } from "../src/index.ts"
import { recordingTransport } from "./fixtures.ts"

const askEverything = Policy.rules({ rules: [{ id: "ask", match: "*", decision: "ask" }] })

/** One asked call of srv/echo, answered by `answer`; the receipt's approval and how many calls were sent. */
const askedCall = (answer: unknown) =>
  Effect.gen(function*() {
    const transport = recordingTransport()
    const layer = Interlock.layer({
      policy: askEverything,
      approvals: Approvals.layer({ approver: () => answer as never })
    }).pipe(Layer.provide(transport.layer))
    const result = yield* Effect.provide(
      Effect.flatMap(ToolCalls, (calls) => Effect.result(calls.callTool({ serverId: "srv", name: "echo", args: {} }))),
      layer
    )
    const receipt = result._tag === "Success" ? result.success.receipt : result.failure.receipt
    return { approval: receipt?.approval, sent: transport.log.calls.length }
  })

describe("approval attribution", () => {
  it.effect("via and by are recorded in the receipt, for allow and deny", () =>
    Effect.gen(function*() {
      const allowed = yield* askedCall({ decision: "allow", via: "console", by: "alice" })
      assert.deepStrictEqual(allowed, { approval: { decision: "allow", source: "console", by: "alice" }, sent: 1 })
      const denied = yield* askedCall({ decision: "deny", via: "elicitation", by: "bob" })
      assert.deepStrictEqual(denied, { approval: { decision: "deny", source: "elicitation", by: "bob" }, sent: 0 })
    }))

  it.effect.prop(
    "an allow with any other via, or a by that is not a string, denies and sends nothing",
    [Schema.Struct({ via: Schema.Unknown, by: Schema.Unknown })],
    ([junk]) =>
      Effect.gen(function*() {
        const valid = (junk.via === undefined || junk.via === "console" || junk.via === "elicitation") &&
          (junk.by === undefined || typeof junk.by === "string")
        const { approval, sent } = yield* askedCall({ decision: "allow", ...junk })
        assert.strictEqual(approval?.decision, valid ? "allow" : "deny")
        assert.strictEqual(sent, valid ? 1 : 0)
      })
  )

  it.effect("an allow that tries to smuggle a via of its own denies", () =>
    Effect.gen(function*() {
      const { approval, sent } = yield* askedCall({ decision: "allow", via: "remembered", by: "mallory" })
      assert.deepStrictEqual(approval, { decision: "deny", source: "error" })
      assert.strictEqual(sent, 0)
    }))
})

describe("approval deadline", () => {
  it.effect(
    "an approver that ignores interruption is denied at the approvals timeout; nothing is sent; the close " +
      "does not hang",
    () =>
      Effect.gen(function*() {
        const transport = recordingTransport()
        const layer = Interlock.layer({
          policy: askEverything,
          approvals: Approvals.layer({ approver: () => Effect.uninterruptible(Effect.never), timeout: 1000 })
        }).pipe(Layer.provide(transport.layer))
        const scope = yield* Scope.make()
        const context = yield* Layer.buildWithScope(layer, scope)
        const calls = context.mapUnsafe.get(ToolCalls.key) as ToolCalls["Service"]
        const fiber = yield* Effect.forkChild(
          Effect.result(calls.callTool({ serverId: "srv", name: "echo", args: {} }))
        )
        yield* TestClock.adjust(1000)
        const exit = fiber.pollUnsafe()
        assert.isDefined(exit, "the caller was still waiting after the approvals timeout")
        const result = exit !== undefined && Exit.isSuccess(exit) ? exit.value : undefined
        assert.strictEqual(result?._tag, "Failure")
        const error = result?._tag === "Failure" ? result.failure : undefined
        assert.strictEqual(error?._tag, "Denied")
        assert.deepStrictEqual(error?.receipt?.approval?.decision, "deny")
        assert.deepStrictEqual(transport.log.calls, [])
        const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void))
        yield* TestClock.adjust(5000)
        assert.isDefined(closing.pollUnsafe(), "closing the client hung on the approver")
      })
  )
})
