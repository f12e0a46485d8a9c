/**
 * Property tests of the approval rule: a state binds exactly one digest, principal and rule, and
 * any change to one of them, to the call's arguments, to the caller, or to the state's text is
 * refused before the tool runs.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { type ApprovalBinding, bindingRefusal } from "../src/calls/ApprovalRound.ts"
import { StateSeal } from "../src/state/StateSeal.ts"
import { ACCOUNT, APPROVE, ARGS, firstRequest, KEY, replica, retry, stateOf, who } from "./approval-host.ts"

const Binding = Schema.Struct({
  digest: Schema.String,
  principal: Schema.NullOr(Schema.String),
  rule: Schema.NullOr(Schema.String)
})

/** The field `bindingRefusal` names first for two bindings, or undefined when they are equal. */
const firstDifference = (a: ApprovalBinding, b: ApprovalBinding) =>
  a.digest !== b.digest ? "call" : a.principal !== b.principal ? "principal" : a.rule !== b.rule ? "rule" : undefined

describe("the approval binding", () => {
  it.effect.prop(
    "a sealed binding holds for exactly the binding it was sealed with",
    [Binding, Binding],
    ([sealed, expected]) =>
      Effect.sync(() => {
        assert.strictEqual(bindingRefusal(sealed, sealed), undefined)
        assert.strictEqual(bindingRefusal(sealed, expected), firstDifference(sealed, expected))
      })
  )

  it.effect.prop(
    "a payload that is not a binding is refused as tampered",
    [Schema.Unknown],
    ([payload]) =>
      Effect.sync(() => {
        const expected = { digest: "d", principal: null, rule: null }
        const refusal = bindingRefusal(payload, expected)
        if (Schema.is(Binding)(payload)) assert.strictEqual(refusal, firstDifference(payload, expected))
        else assert.strictEqual(refusal, "tampered")
      })
  )

  it.effect.prop(
    "a retry with any other arguments is refused, and the tool never runs",
    [Schema.String, Schema.Finite],
    ([to, amount]) =>
      Effect.gen(function*() {
        const { runs, transfer } = yield* replica()
        const state = stateOf(yield* transfer(firstRequest()))
        const changed = { to, amount }
        const end = yield* transfer(retry(state, APPROVE), changed)
        if (to === ACCOUNT && amount === ARGS.amount) return assert.strictEqual(end._tag, "Ok")
        assert.strictEqual(
          end._tag === "Error" ? end.error : end._tag,
          "StateRefused: the approval state was refused (call): it belongs to another call (the tool, the request " +
            "or its arguments differ)"
        )
        assert.deepStrictEqual(runs, [])
      }),
    { arbitrary: { runs: 40 } }
  )

  it.effect.prop(
    "a retry by any other principal is refused",
    [Schema.NonEmptyString],
    ([id]) =>
      Effect.gen(function*() {
        const { runs, transfer } = yield* replica()
        const state = stateOf(yield* transfer(firstRequest()))
        const end = yield* transfer(retry(state, APPROVE), ARGS, who(id))
        if (id === "bob") return assert.strictEqual(end._tag, "Ok")
        assert.strictEqual(
          end._tag === "Error" ? end.error : end._tag,
          "StateRefused: the approval state was refused (principal): it belongs to another principal"
        )
        assert.deepStrictEqual(runs, [])
      }),
    { arbitrary: { runs: 40 } }
  )

  it.effect.prop(
    "a state with any character changed is refused, unless it decodes to the very same state",
    [
      Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 10_000 })),
      Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 64 }))
    ],
    ([at, flip]) =>
      Effect.gen(function*() {
        const { runs, transfer } = yield* replica()
        const state = stateOf(yield* transfer(firstRequest()))
        const index = at % state.length
        const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."
        const changed = state.slice(0, index) + alphabet[(alphabet.indexOf(state[index]!) + flip) % alphabet.length] +
          state.slice(index + 1)
        const end = yield* transfer(retry(changed, APPROVE))
        if (end._tag === "Ok") {
          // Only a change in the unused bits of a base64url segment: the same id, so the original is now used.
          const [reopened, original] = yield* Effect.gen(function*() {
            const seal = yield* StateSeal
            return [yield* seal.open("approval", changed), yield* seal.open("approval", state)] as const
          }).pipe(Effect.provide(StateSeal.fromSecret(KEY)))
          assert.deepStrictEqual(reopened, original)
          assert.match((yield* transfer(retry(state, APPROVE)))._tag, /^Error$/)
          return assert.strictEqual(runs.length, 1)
        }
        assert.strictEqual(
          end._tag === "Error" ? end.error : end._tag,
          "StateRefused: the approval state was refused (tampered): it is not a state this gateway sealed, or it " +
            "was changed"
        )
        assert.deepStrictEqual(runs, [])
      }),
    { arbitrary: { runs: 60 } }
  )
})
