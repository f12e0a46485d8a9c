/** A test helper for hard deadlines: runs an Effect past its deadline on the TestClock. */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"

/** Forks `effect`, moves the clock by `millis`, and returns how it ended (it must have ended). */
export const atDeadline = <A, E>(effect: Effect.Effect<A, E>, millis: number) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkChild(effect)
    yield* TestClock.adjust(millis)
    const exit = fiber.pollUnsafe()
    assert.isDefined(exit, "the caller was still waiting after the deadline")
    return exit!
  })
