import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import * as SyncOrEffect from "../src/internal/SyncOrEffect.ts"

// A step as the pipeline has it: answered at once, or through an Effect that waits (a yield).
const answered = (value: number, suspend: boolean): SyncOrEffect.SyncOrEffect<number> =>
  suspend ? Effect.andThen(Effect.yieldNow, Effect.succeed(value)) : value

const double = (n: number) => n * 2
const check = (
  n: number
): Effect.Effect<string, string> => (n % 3 === 0 ? Effect.fail(`multiple of 3: ${n}`) : Effect.succeed(`ok ${n}`))

describe("SyncOrEffect", () => {
  it.effect.prop(
    "map gives the same answer from a value and from an Effect",
    [Schema.Finite],
    ([n]) =>
      Effect.gen(function*() {
        const now = SyncOrEffect.map(answered(n, false), double)
        assert.isFalse(SyncOrEffect.isEffect(now))
        const later = SyncOrEffect.map(answered(n, true), double)
        assert.isTrue(SyncOrEffect.isEffect(later))
        assert.strictEqual(yield* SyncOrEffect.toEffect(later), now)
        assert.strictEqual(yield* SyncOrEffect.toEffect(now), double(n))
      })
  )

  it.effect.prop(
    "flatMap gives the same exit from a value and from an Effect, success or failure",
    [Schema.Int],
    ([n]) =>
      Effect.gen(function*() {
        const now = yield* Effect.exit(SyncOrEffect.flatMap(answered(n, false), check))
        const later = yield* Effect.exit(SyncOrEffect.flatMap(answered(n, true), check))
        assert.deepStrictEqual(later, now)
        assert.deepStrictEqual(now, n % 3 === 0 ? Exit.fail(`multiple of 3: ${n}`) : Exit.succeed(`ok ${n}`))
      })
  )

  it.effect.prop("match calls onValue for a value and onEffect for an Effect, with the same answer", [
    Schema.String,
    Schema.Boolean
  ], ([text, suspend]) =>
    Effect.gen(function*() {
      const step: SyncOrEffect.SyncOrEffect<string> = suspend ? Effect.succeed(text) : text
      const got = SyncOrEffect.match(step, {
        onValue: (value) => ({ form: "value" as const, answer: Effect.succeed(value) }),
        onEffect: (effect) => ({ form: "effect" as const, answer: effect })
      })
      assert.strictEqual(got.form, suspend ? "effect" : "value")
      assert.strictEqual(yield* got.answer, text)
    }))

  it.effect("flatMap on a value continues at once, without running an Effect first", () =>
    Effect.sync(() => {
      let calls = 0
      const next = SyncOrEffect.flatMap(1, (n) => {
        calls++
        return Effect.succeed(n + 1)
      })
      assert.strictEqual(calls, 1)
      assert.isTrue(Effect.isEffect(next))
    }))
})
