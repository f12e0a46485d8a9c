import { assert, describe, it } from "@effect/vitest"
import { Clock, Context, Effect, Layer, Redacted, Result, Schema } from "effect"
import { TestClock } from "effect/testing"
import { StateSeal } from "../src/state/StateSeal.ts"
import { UsedStates } from "../src/state/UsedStates.ts"

const seal = StateSeal.fromSecret(Redacted.make("a secret long enough to derive a key from"))
const refusal = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.map(
    Effect.result(effect),
    (result) => Result.isFailure(result) ? (result.failure as { readonly reason?: string }).reason : "opened"
  )

describe("StateSeal", () => {
  it.effect("opens what it sealed, for the same purpose, until it expires", () =>
    Effect.gen(function*() {
      const states = yield* StateSeal
      const state = yield* states.seal("approval", { digest: "d1", principal: "alice" }, 60_000)
      assert.notInclude(state, "alice")
      const opened = yield* states.open("approval", state)
      assert.deepStrictEqual(opened.payload, { digest: "d1", principal: "alice" })
      assert.strictEqual(opened.expiresAtMs, 60_000)
      assert.strictEqual(yield* refusal(states.open("relay", state)), "purpose")
      yield* TestClock.adjust(61_000)
      assert.strictEqual(yield* refusal(states.open("approval", state)), "expired")
    }).pipe(Effect.provide(seal)))

  it.effect("refuses a state sealed with another key", () =>
    Effect.gen(function*() {
      const other = yield* Effect.provide(
        Effect.gen(function*() {
          return yield* (yield* StateSeal).seal("approval", { digest: "d1" }, 60_000)
        }),
        StateSeal.generated
      )
      const states = yield* StateSeal
      assert.strictEqual(yield* refusal(states.open("approval", other)), "malformed")
    }).pipe(Effect.provide(seal)))

  it.effect.prop("refuses every change to a sealed state", [
    Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 10_000 })),
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 63 }))
  ], ([at, flip]) =>
    Effect.gen(function*() {
      const states = yield* StateSeal
      const state = yield* states.seal("approval", { digest: "d1", principal: "alice" }, 60_000)
      const index = at % state.length
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."
      const replaced = alphabet[(alphabet.indexOf(state[index]!) + flip) % alphabet.length]!
      const changed = state.slice(0, index) + replaced + state.slice(index + 1)
      const result = yield* refusal(states.open("approval", changed))
      // A changed character in the unused bits of a base64url segment's last character may decode to the same bytes.
      if (result === "opened") {
        assert.deepStrictEqual((yield* states.open("approval", changed)).payload, { digest: "d1", principal: "alice" })
      } else assert.strictEqual(result, "malformed")
    }).pipe(Effect.provide(seal)))
})

describe("UsedStates", () => {
  it.effect("claims an id once, and never once it has expired", () =>
    Effect.gen(function*() {
      const used = yield* UsedStates
      assert.isTrue(yield* used.claim("s1", 10_000))
      assert.isFalse(yield* used.claim("s1", 10_000))
      assert.isTrue(yield* used.claim("s2", 10_000))
      yield* TestClock.adjust(10_000)
      assert.isFalse(yield* used.claim("s3", 10_000))
    }).pipe(Effect.provide(UsedStates.memory)))

  it.effect.prop(
    "agrees with the plain rule (once per id while its mark lives) for any claims over time",
    [
      Schema.Array(
        Schema.Tuple([
          Schema.Literals(["a", "b", "c"]),
          Schema.Int.check(Schema.isBetween({ minimum: -500, maximum: 3_000 })),
          Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_500 }))
        ])
      ).check(Schema.isMaxLength(60))
    ],
    ([steps]) =>
      Effect.gen(function*() {
        const used = yield* Layer.build(UsedStates.memory).pipe(Effect.map(Context.get(UsedStates)))
        const model = new Map<string, number>()
        for (const [id, lifetime, wait] of steps) {
          const now = yield* Clock.currentTimeMillis
          const expected = now + lifetime > now && !((model.get(id) ?? Number.NEGATIVE_INFINITY) > now)
          if (expected) model.set(id, now + lifetime)
          assert.strictEqual(yield* used.claim(id, now + lifetime), expected)
          yield* TestClock.adjust(wait)
        }
      }),
    { arbitrary: { runs: 200 } }
  )
})
