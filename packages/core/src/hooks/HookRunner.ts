/**
 * The one hook runner: core's hook chains, the agent's model-level hooks and claude's hooks call their host
 * functions through {@link invoke}, which settles the answer under its Clock-driven deadline. A plain value is
 * decoded on the spot (no fiber, no timer); a Promise is awaited, its rejection handled; an Effect runs in its own
 * fiber, as {@link Fibers} says. What a function raised is dropped here and goes nowhere.
 */
import { Cause, type Context, Effect, Exit, Fiber } from "effect"
import { isTimedOut, runWithin, type Supervisor } from "../internal/Supervisor.ts"
import type { FailureKind } from "../model/Receipt.ts"
import { BAD_RETURN } from "./VerdictDecoder.ts"

export { BAD_RETURN }

const SettledId = Symbol.for("@interlock/core/Settled")

/** A function answered, and its answer decoded to `verdict`. */
export interface Answered<V> {
  readonly [SettledId]: true
  readonly ok: true
  readonly verdict: V
}

/** A function failed; `detached` when its fiber ignored interruption and was left running, supervised. */
export interface Failed {
  readonly [SettledId]: true
  readonly ok: false
  readonly kind: FailureKind
  readonly detached?: true
}

/** How a function ended: a decoded verdict, or a failure kind. */
export type Settled<V> = Answered<V> | Failed

/** Whether `invoke` answered at once (a Settled) rather than with an Effect to wait on. */
export const isSettled = <V>(value: Settled<V> | Effect.Effect<Settled<V>>): value is Settled<V> =>
  (value as { readonly [SettledId]?: true })[SettledId] === true

/**
 * Where an Effect's fiber runs, and how its deadline ends it.
 * - Supervised: in a client's Supervisor. The deadline is hard: the fiber is signalled a grace
 *   before it, and one still running at the deadline is detached (still supervised); the answer
 *   comes at the deadline whatever the fiber does.
 * - Beside: beside the caller, interrupted with it. At the deadline the fiber is interrupted and
 *   waited for at most `graceMs`, or until it ends when `graceMs` is absent, before the answer.
 */
export type Fibers =
  | { readonly _tag: "Supervised"; readonly supervisor: Supervisor }
  | { readonly _tag: "Beside"; readonly graceMs: number | undefined }

/** Effects run in `supervisor`'s fibers, under a hard deadline. */
export const supervised = (supervisor: Supervisor): Fibers => ({ _tag: "Supervised", supervisor })

/** Effects run beside the caller; at the deadline they are interrupted and waited for `graceMs` (or until they end). */
export const beside = (graceMs?: number): Fibers => ({ _tag: "Beside", graceMs })

/**
 * How to run one kind of host function over a state `S` for a hook `H`. Both are passed to each
 * field rather than captured, so that one Invocation serves many calls and a call that answers at
 * once allocates nothing.
 */
export interface Invocation<S, H, V> {
  /** Calls the function with the event's arguments (the thunk); it may return a value, a Promise or an Effect. */
  readonly call: (state: S, hook: H) => unknown
  /** Reads an answer as a verdict, or {@link BAD_RETURN} when it is not one. Must not throw. */
  readonly decode: (value: unknown, state: S, hook: H) => V | typeof BAD_RETURN
  /** The hook's deadline, in ms. */
  readonly deadlineMs: (hook: H) => number
  /** Where an Effect's fiber runs. */
  readonly fibers: Fibers
  /** Services provided to an Effect (a Layer's, captured when it was built); absent: the caller's. */
  readonly context?: Context.Context<never> | undefined
  /**
   * Reads an Effect's typed failure as an answer of its own (claude's command hooks fail with
   * their own kinds); undefined keeps it a raise. Absent: every failure is a raise.
   */
  readonly raised?: ((error: unknown) => V | undefined) | undefined
  /** An answer that is its own verdict (core's Continue), compared first: answering it checks and allocates nothing. */
  readonly pass?: Pass<V> | undefined
}

/** An answer and the Settled it stands for (see {@link passing}). */
export interface Pass<V> {
  readonly answer: unknown
  readonly settled: Answered<V>
}

/** `answer`, when a function returns that very value, settles at once as `verdict`. */
export const passing = <V>(answer: unknown, verdict: V): Pass<V> => ({ answer, settled: answered(verdict) })

const answered = <V>(verdict: V): Answered<V> => ({ [SettledId]: true, ok: true, verdict })
const failed = (kind: FailureKind): Failed => ({ [SettledId]: true, ok: false, kind })
const RAISE = failed("raise")
const EXIT = failed("exit")
const TIMEOUT = failed("timeout")
const TIMEOUT_DETACHED: Failed = { [SettledId]: true, ok: false, kind: "timeout", detached: true }
const BAD = failed("bad_return")

const decodeValue = <S, H, V>(invocation: Invocation<S, H, V>, state: S, hook: H, value: unknown): Settled<V> => {
  const verdict = invocation.decode(value, state, hook)
  return verdict === BAD_RETURN ? BAD : answered(verdict)
}

/** Decodes what a Promise or an Effect gave. */
const decode = <S, H, V>(invocation: Invocation<S, H, V>, state: S, hook: H, value: unknown): Settled<V> => {
  const pass = invocation.pass
  return pass !== undefined && value === pass.answer ? pass.settled : decodeValue(invocation, state, hook, value)
}

const fromExit = <S, H, V>(
  invocation: Invocation<S, H, V>,
  state: S,
  hook: H,
  exit: Exit.Exit<unknown, unknown>
): Settled<V> => {
  if (Exit.isSuccess(exit)) return decode(invocation, state, hook, exit.value)
  if (Cause.hasInterruptsOnly(exit.cause)) return EXIT
  if (invocation.raised !== undefined) {
    const error = Cause.findErrorOption(exit.cause)
    const verdict = error._tag === "Some" ? invocation.raised(error.value) : undefined
    if (verdict !== undefined) return answered(verdict)
  }
  return RAISE
}

/** Interrupts a fiber left behind at its deadline, and waits for it at most `graceMs` (or until it ends). */
const release = (fiber: Fiber.Fiber<unknown, unknown>, graceMs: number | undefined): Effect.Effect<unknown> =>
  graceMs === undefined ? Fiber.interrupt(fiber) : Effect.timeoutOption(Fiber.interrupt(fiber), graceMs)

/** Runs `effect` in a fiber beside the caller: interrupted with it, and at the deadline, with a grace. */
const runBeside = <A, E>(
  effect: Effect.Effect<A, E>,
  millis: number,
  graceMs: number | undefined
): Effect.Effect<Exit.Exit<A, E> | undefined> =>
  Effect.uninterruptibleMask((restore) =>
    // Detached, so that a fiber ignoring interruption cannot hold the caller's: it is always
    // interrupted when the wait ends, and waited for only within the grace.
    Effect.flatMap(Effect.forkDetach(effect, { startImmediately: true }), (fiber) => {
      const done = fiber.pollUnsafe()
      if (done !== undefined) return Effect.succeed(done)
      return restore(Effect.timeoutOption(Fiber.await(fiber), millis)).pipe(
        Effect.onInterrupt(() => release(fiber, graceMs)),
        Effect.flatMap((settled) =>
          settled._tag === "Some" ? Effect.succeed(settled.value) : Effect.as(release(fiber, graceMs), undefined)
        )
      )
    })
  )

const runEffect = <S, H, V>(
  invocation: Invocation<S, H, V>,
  state: S,
  hook: H,
  effect: Effect.Effect<unknown, unknown>
): Effect.Effect<Settled<V>> => {
  const program = invocation.context === undefined ? effect : Effect.provideContext(effect, invocation.context)
  const millis = invocation.deadlineMs(hook)
  const fibers = invocation.fibers
  if (fibers._tag === "Supervised") {
    return Effect.map(
      runWithin(fibers.supervisor, program, millis),
      (exit) =>
        isTimedOut(exit) ? (exit.detached ? TIMEOUT_DETACHED : TIMEOUT) : fromExit(invocation, state, hook, exit)
    )
  }
  return Effect.map(
    runBeside(program, millis, fibers.graceMs),
    (exit) => exit === undefined ? TIMEOUT : fromExit(invocation, state, hook, exit)
  )
}

const runPromise = <S, H, V>(
  invocation: Invocation<S, H, V>,
  state: S,
  hook: H,
  promise: PromiseLike<unknown>
): Effect.Effect<Settled<V>> =>
  Effect.callback<Settled<V>>((resume) => {
    try {
      promise.then(
        (value) => resume(Effect.succeed(decode(invocation, state, hook, value))),
        () => resume(Effect.succeed(RAISE))
      )
    } catch {
      resume(Effect.succeed(RAISE))
    }
  }).pipe(
    Effect.timeoutOption(invocation.deadlineMs(hook)),
    Effect.map((settled) => (settled._tag === "Some" ? settled.value : TIMEOUT))
  )

/**
 * Promise.resolve's rule: any object or function with a callable `then`. Reading `then` may run
 * the function's own code (a getter); if that throws, the caller settles it as a raise.
 */
const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === "object" && value !== null || typeof value === "function") &&
  typeof (value as { then?: unknown }).then === "function"

/**
 * Calls one hook over `state` and settles its answer: directly when it answered with a plain value,
 * else with an Effect to wait on. Never fails and never throws: a hook's failure is settled as raise
 * (a throw, a rejection, Effect.fail, a defect, a `then` that throws), exit (the Effect interrupted
 * itself), timeout, or bad_return (the decoder refused the answer).
 */
export const invoke = <S, H, V>(
  invocation: Invocation<S, H, V>,
  state: S,
  hook: H
): Settled<V> | Effect.Effect<Settled<V>> => {
  let value: unknown
  try {
    value = invocation.call(state, hook)
    const pass = invocation.pass
    if (pass !== undefined && value === pass.answer) return pass.settled
    if (Effect.isEffect(value)) return runEffect(invocation, state, hook, value as Effect.Effect<unknown, unknown>)
    if (isThenable(value)) return runPromise(invocation, state, hook, value)
  } catch {
    return RAISE
  }
  return decodeValue(invocation, state, hook, value)
}

/**
 * Runs `f` and lifts its answer into an Effect, keeping its typed failures (approvers, native
 * tools): an Effect as is, a Promise (rejections become failures), or a plain value. A synchronous
 * throw becomes a defect.
 */
export const lift = <A, E, R>(f: () => Effect.Effect<A, E, R> | PromiseLike<A> | A): Effect.Effect<A, unknown, R> =>
  Effect.suspend((): Effect.Effect<A, unknown, R> => {
    const out = f()
    if (Effect.isEffect(out)) return out as Effect.Effect<A, E, R>
    if (isThenable(out)) return Effect.tryPromise(() => Promise.resolve(out))
    return Effect.succeed(out as A)
  })
