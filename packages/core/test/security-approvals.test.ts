/**
 * An approver's attribution (how and by whom) reaches the receipt exactly as given, and an answer
 * whose attribution is junk denies like any other junk answer: the call is never sent.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { Approvals, Interlock, Policy, ToolCalls } from "../src/index.ts"
import { recordingTransport } from "./fixtures.ts"

const askEverything = Policy.rules({ rules: [{ id: "ask", match: "*", decision: "ask" }] })

/** One asked call of srv/echo, answered by `answer`; the receipt's approval and how many calls were sent. */
const askedCall = (answer: unknown) =>
  Effect.gen(function*() {
    const transport = recordingTransport()
    const layer = Interlock.layer({ policy: askEverything, approvals: Approvals.layer({ approver: () => answer as never }) }).pipe(Layer.provide(transport.layer))
    const result = yield* Effect.provide(Effect.flatMap(ToolCalls, (calls) => Effect.result(calls.callTool({ serverId: "srv", name: "echo", args: {} }))), layer)
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
        const valid = (junk.via === undefined || junk.via === "console" || junk.via === "elicitation") && (junk.by === undefined || typeof junk.by === "string")
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
