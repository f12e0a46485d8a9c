/**
 * The client's supervisor: the fibers its hooks, custom policies and transport requests run in.
 *
 * Deadlines are hard. A caller waits for such a fiber at most until its deadline, then gets its
 * answer (a timeout) whether or not the fiber yields to interruption: the fiber is signalled and,
 * if it is still running (it is uninterruptible), detached. A detached fiber stays supervised:
 * closing the client's Layer signals every fiber again and waits, at most `closeGraceMs`, for the
 * ones that were not detached; it never waits for a detached one, so nothing hangs the close.
 */
import { Effect, type Exit, Fiber, type Scope } from "effect"

/** The supervised fibers of one client. */
export interface Supervisor {
  readonly live: Set<Fiber.Fiber<unknown, unknown>>
  /** Fibers that did not end when signalled at their deadline (a subset of `live`). */
  readonly detached: Set<Fiber.Fiber<unknown, unknown>>
  closed: boolean
}

/** A wait that passed its deadline; `detached` is true when the fiber was still running after the signal. */
export interface TimedOut {
  readonly _tag: "TimedOut"
  readonly detached: boolean
}

const TIMED_OUT: TimedOut = { _tag: "TimedOut", detached: false }
const TIMED_OUT_DETACHED: TimedOut = { _tag: "TimedOut", detached: true }

/** Whether a wait ended on its deadline rather than with the fiber's exit. */
export const isTimedOut = (value: Exit.Exit<unknown, unknown> | TimedOut): value is TimedOut => value._tag === "TimedOut"

/**
 * A supervisor in the current scope. Closing the scope signals every live fiber, and waits at
 * most `closeGraceMs` for those that were not detached.
 */
export const make = (closeGraceMs: number): Effect.Effect<Supervisor, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync((): Supervisor => ({ live: new Set(), detached: new Set(), closed: false })),
    (supervisor) =>
      Effect.suspend(() => {
        supervisor.closed = true
        const waiting: Array<Fiber.Fiber<unknown, unknown>> = []
        for (const fiber of supervisor.live) {
          fiber.interruptUnsafe()
          if (!supervisor.detached.has(fiber) && fiber.pollUnsafe() === undefined) waiting.push(fiber)
        }
        return waiting.length === 0 ? Effect.void : Effect.ignore(Effect.timeoutOption(Fiber.awaitAll(waiting), closeGraceMs))
      })
  )

/** Signals a fiber to stop and stops waiting on it. Returns true when it is still running (detached). */
const release = (supervisor: Supervisor, fiber: Fiber.Fiber<unknown, unknown>): boolean => {
  fiber.interruptUnsafe()
  if (fiber.pollUnsafe() !== undefined) return false
  supervisor.detached.add(fiber)
  return true
}

const track = (supervisor: Supervisor, fiber: Fiber.Fiber<unknown, unknown>): void => {
  if (supervisor.closed) {
    fiber.interruptUnsafe()
    return
  }
  supervisor.live.add(fiber)
  fiber.addObserver(() => {
    supervisor.live.delete(fiber)
    supervisor.detached.delete(fiber)
  })
}

/**
 * Runs `effect` in a supervised fiber, started at once, and waits for it at most `millis`.
 * A fiber that finishes without suspending costs no timer and is never tracked. Interrupting the
 * caller signals the fiber and does not wait for it either.
 */
export const runWithin = <A, E>(
  supervisor: Supervisor,
  effect: Effect.Effect<A, E>,
  millis: number
): Effect.Effect<Exit.Exit<A, E> | TimedOut> =>
  // Masked from the fork on: an interruption that arrives while the fiber starts (it may wake the
  // interrupter synchronously) is only seen inside the wait, where it releases the fiber.
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Effect.forkDetach(effect, { startImmediately: true }), (fiber) => {
      const done = fiber.pollUnsafe()
      if (done !== undefined) return Effect.succeed(done)
      track(supervisor, fiber)
      return restore(Effect.timeoutOption(Fiber.await(fiber), millis)).pipe(
        Effect.onInterrupt(() => Effect.sync(() => release(supervisor, fiber))),
        Effect.map((exit) =>
          exit._tag === "Some" ? exit.value : release(supervisor, fiber) ? TIMED_OUT_DETACHED : TIMED_OUT
        )
      )
    })
  )
