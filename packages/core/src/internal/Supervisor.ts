/**
 * The client's supervisor: the fibers its hooks, custom policies and transport requests run in. Deadlines are
 * hard: a caller gets its timeout at the deadline whether or not the fiber yields; the fiber is signalled a grace
 * before it ({@link releaseGraceMs}), and one still running then is detached, still supervised but never waited
 * for on close. Past `maxDetached` detached fibers, a step fails closed at once.
 */
import { Effect, type Exit, Fiber, type Scope } from "effect"

/** The supervised fibers of one client. */
export interface Supervisor {
  readonly live: Set<Fiber.Fiber<unknown, unknown>>
  /** Fibers that did not end when signalled at their deadline (a subset of `live`). */
  readonly detached: Set<Fiber.Fiber<unknown, unknown>>
  closed: boolean
  /** The cap on `detached`; past it {@link runWithin} times out at once without forking. */
  readonly maxDetached: number
}

/** The default cap on detached fibers per client: each may hold memory for as long as it runs. */
export const MAX_DETACHED = 1024

/** The most a fiber is signalled before its deadline, so an async cleanup can end by then. */
export const RELEASE_GRACE_MS = 100

/**
 * The grace before a deadline of `millis` at which its fiber is signalled: a tenth, at most {@link RELEASE_GRACE_MS}.
 */
export const releaseGraceMs = (millis: number): number => Math.min(RELEASE_GRACE_MS, Math.floor(millis / 10))

/** A wait that passed its deadline; `detached` is true when the fiber was still running after the signal. */
export interface TimedOut {
  readonly _tag: "TimedOut"
  readonly detached: boolean
}

const TIMED_OUT: TimedOut = { _tag: "TimedOut", detached: false }
const TIMED_OUT_DETACHED: TimedOut = { _tag: "TimedOut", detached: true }

/** Whether a wait ended on its deadline rather than with the fiber's exit. */
export const isTimedOut = (value: Exit.Exit<unknown, unknown> | TimedOut): value is TimedOut =>
  value._tag === "TimedOut"

/**
 * A supervisor in the current scope. Closing the scope signals every live fiber, and waits at
 * most `closeGraceMs` for those that were not detached.
 */
export const make = (
  closeGraceMs: number,
  maxDetached: number = MAX_DETACHED
): Effect.Effect<Supervisor, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync((): Supervisor => ({ live: new Set(), detached: new Set(), closed: false, maxDetached })),
    (supervisor) =>
      Effect.suspend(() => {
        supervisor.closed = true
        const waiting: Array<Fiber.Fiber<unknown, unknown>> = []
        for (const fiber of supervisor.live) {
          fiber.interruptUnsafe()
          if (!supervisor.detached.has(fiber) && fiber.pollUnsafe() === undefined) waiting.push(fiber)
        }
        return waiting.length === 0
          ? Effect.void
          : Effect.ignore(Effect.timeoutOption(Fiber.awaitAll(waiting), closeGraceMs))
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

const TIMED_OUT_NOW = Effect.succeed(TIMED_OUT)

/**
 * After the signal, the grace, waited in full so the caller answers at the deadline: a fiber that
 * ended in it answered (success) or timed out; one still running is detached.
 */
const graceWait = <A, E>(supervisor: Supervisor, fiber: Fiber.Fiber<A, E>, grace: number) =>
  Effect.map(
    Effect.zip(Effect.timeoutOption(Fiber.await(fiber), grace), Effect.sleep(grace), { concurrent: true }),
    ([exit]): Exit.Exit<A, E> | TimedOut =>
      exit._tag === "Some"
        ? exit.value._tag === "Success" ? exit.value : TIMED_OUT
        : release(supervisor, fiber)
        ? TIMED_OUT_DETACHED
        : TIMED_OUT
  )

/**
 * Runs `effect` in a supervised fiber, started at once, and waits for it at most `millis`; the
 * fiber is signalled {@link releaseGraceMs} before that. A fiber that finishes without suspending
 * costs no timer and is never tracked. Interrupting the caller signals the fiber and does not wait
 * for it either. With `maxDetached` fibers detached, times out at once and forks nothing.
 */
export const runWithin = <A, E>(
  supervisor: Supervisor,
  effect: Effect.Effect<A, E>,
  millis: number
): Effect.Effect<Exit.Exit<A, E> | TimedOut> =>
  Effect.suspend(() =>
    supervisor.detached.size >= supervisor.maxDetached ? TIMED_OUT_NOW : supervised(supervisor, effect, millis)
  )

const supervised = <A, E>(
  supervisor: Supervisor,
  effect: Effect.Effect<A, E>,
  millis: number
): Effect.Effect<Exit.Exit<A, E> | TimedOut> => {
  const grace = releaseGraceMs(millis)
  // Masked from the fork on: an interruption that arrives while the fiber starts (it may wake the
  // interrupter synchronously) is only seen inside the wait, where it releases the fiber.
  return Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Effect.forkDetach(effect, { startImmediately: true }), (fiber) => {
      const done = fiber.pollUnsafe()
      if (done !== undefined) return Effect.succeed(done)
      track(supervisor, fiber)
      return restore(
        Effect.flatMap(Effect.timeoutOption(Fiber.await(fiber), millis - grace), (exit) => {
          if (exit._tag === "Some") return Effect.succeed(exit.value)
          if (grace === 0) return Effect.succeed(release(supervisor, fiber) ? TIMED_OUT_DETACHED : TIMED_OUT)
          fiber.interruptUnsafe()
          return graceWait(supervisor, fiber, grace)
        })
      ).pipe(Effect.onInterrupt(() => Effect.sync(() => release(supervisor, fiber))))
    })
  )
}
