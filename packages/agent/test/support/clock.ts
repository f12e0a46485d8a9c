/** Drives TestClock while real I/O (the fake server over loopback) happens in between. */
import { type Duration, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"

/** Waits a little real time, so that sockets can deliver. */
export const realPause = (ms = 10) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

/** Waits (in real time) until `condition` holds, at most about 5 s. */
export const until = (condition: () => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 500 && !condition(); i++) yield* realPause(10)
    return condition()
  })

/** Runs `effect`, advancing the TestClock by `step` whenever it waits, until it ends. */
export const withClock = <A, E>(effect: Effect.Effect<A, E>, step: Duration.Input = "1 second") =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkChild(effect)
    for (let i = 0; i < 400 && fiber.pollUnsafe() === undefined; i++) {
      yield* realPause(5)
      yield* TestClock.adjust(step)
    }
    return yield* Fiber.join(fiber)
  })
