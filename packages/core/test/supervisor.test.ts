/**
 * The supervisor's hard deadlines: only a fiber that really ignores interruption is reported
 * detached (one whose cleanup is async is not), and detached fibers are capped: past the cap a
 * step fails closed at once, without forking.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { TestClock } from "effect/testing"
import * as Supervisor from "../src/internal/Supervisor.ts"
import { atDeadline } from "./deadline.ts"

const timedOut = (exit: Exit.Exit<Exit.Exit<unknown, unknown> | Supervisor.TimedOut, unknown>) =>
  Exit.isSuccess(exit) && Supervisor.isTimedOut(exit.value) ? exit.value : undefined

describe("Supervisor", () => {
  it.effect("an interruptible fiber whose cleanup is async is not detached, and closing waits for its cleanup", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const supervisor = yield* Scope.provide(Supervisor.make(1000), scope)
      let cleaned = false
      const slowCleanup = Effect.never.pipe(Effect.ensuring(
        Effect.sleep(5).pipe(Effect.andThen(Effect.sync(() => {
          cleaned = true
        })))
      ))
      const exit = yield* atDeadline(Supervisor.runWithin(supervisor, slowCleanup, 100), 100)
      assert.deepStrictEqual(timedOut(exit), { _tag: "TimedOut", detached: false })
      assert.strictEqual(supervisor.detached.size, 0)
      // A fiber cleaning up when the client closes: close waits for its cleanup.
      cleaned = false
      yield* Effect.forkChild(Supervisor.runWithin(supervisor, slowCleanup, 10_000))
      yield* Effect.yieldNow
      const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void))
      yield* TestClock.adjust(4)
      assert.isFalse(cleaned)
      assert.isUndefined(closing.pollUnsafe(), "close did not wait for a cleanup in progress")
      yield* TestClock.adjust(1)
      assert.isTrue(cleaned)
      assert.isDefined(closing.pollUnsafe())
    }))

  it.effect("a fiber that ignores interruption is detached at the deadline", () =>
    Effect.gen(function*() {
      const supervisor = yield* Supervisor.make(1000)
      const exit = yield* atDeadline(Supervisor.runWithin(supervisor, Effect.uninterruptible(Effect.never), 100), 100)
      assert.deepStrictEqual(timedOut(exit), { _tag: "TimedOut", detached: true })
      assert.strictEqual(supervisor.detached.size, 1)
    }))

  it.effect("past the cap on detached fibers, a step fails closed at once and is never forked", () =>
    Effect.gen(function*() {
      const supervisor = yield* Supervisor.make(1000, 2)
      for (let i = 0; i < 2; i++) {
        yield* atDeadline(Supervisor.runWithin(supervisor, Effect.uninterruptible(Effect.never), 100), 100)
      }
      assert.strictEqual(supervisor.detached.size, 2)
      let ran = 0
      const fiber = yield* Effect.forkChild(Supervisor.runWithin(supervisor, Effect.sync(() => ++ran), 100))
      yield* Effect.yieldNow
      const exit = fiber.pollUnsafe()
      assert.isDefined(exit, "the step waited instead of failing at once")
      assert.strictEqual(timedOut(exit!)?._tag, "TimedOut")
      assert.strictEqual(ran, 0)
      assert.strictEqual(supervisor.detached.size, 2)
      assert.strictEqual(Supervisor.MAX_DETACHED, 1024)
    }))
})
