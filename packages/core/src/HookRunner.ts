/**
 * The hook runner: runs one hook under its deadline and classifies how it ended.
 *
 * - A hook that answers synchronously with a plain verdict is decoded on the spot: no fiber, no
 *   timer (a synchronous function cannot be preempted, so neither would add anything).
 * - A hook that returns an Effect runs in its own fiber under the client's Supervisor (closing the
 *   client interrupts it), started immediately; if it finishes without suspending it costs no timer.
 *   Otherwise the caller waits under the hook's deadline, which is hard: at the deadline the caller
 *   gets `timeout` even from a hook that does not yield to interruption; such a hook's fiber is
 *   detached (still supervised) and the run is marked `detached` in the receipt and telemetry.
 * - A hook that returns a Promise is awaited under its deadline; its rejection is handled, so it never
 *   becomes an unhandled rejection.
 *
 * Failures: raise (throw, rejection, Effect.fail, defect), exit (the hook interrupted itself), timeout,
 * bad_return. What the hook raised is dropped here and goes nowhere.
 */
import { Cause, type Context, Effect, Exit } from "effect"
import type { ResolvedHook } from "./Hooks.ts"
import type { FailureKind } from "./Receipt.ts"
import { BAD_RETURN, type Decoded, type DecodeInput, decodeVerdict } from "./VerdictDecoder.ts"
import { cont } from "./Verdict.ts"
import { isTimedOut, runWithin, type Supervisor } from "./Supervisor.ts"

const SettledId = Symbol.for("@interlock/core/Settled")

/** How a hook ended: a decoded verdict, or a failure kind. */
export type Settled =
  | { readonly [SettledId]: true; readonly ok: true; readonly verdict: Decoded }
  | { readonly [SettledId]: true; readonly ok: false; readonly kind: FailureKind; readonly detached?: true }

/** Whether `invoke` answered at once (a Settled) rather than with an Effect to wait on. */
export const isSettled = (value: Settled | Effect.Effect<Settled>): value is Settled =>
  (value as { readonly [SettledId]?: true })[SettledId] === true

/** How to call the hooks of one event over a state, and what their verdicts are decoded against. */
export interface Invocation<S> {
  /** Calls a hook function with the event's arguments (no argument array is built). */
  readonly call: (run: Function, state: S, hook: ResolvedHook) => unknown
  /** What a verdict is decoded against; built only when a hook answers something other than Continue. */
  readonly input: (state: S, hook: ResolvedHook) => DecodeInput
}

/** What the runner needs from the client. */
export interface RunnerEnv {
  /** Where the client's hook fibers run, supervised. */
  readonly supervisor: Supervisor
  /** Default deadline in ms (the client's hookTimeout). */
  readonly hookTimeoutMs: number
  /** Services for Effect hooks, captured when the Layer was built. */
  readonly context: Context.Context<never>
  readonly hasContext: boolean
}

const CONTINUED: Settled = { [SettledId]: true, ok: true, verdict: { _tag: "Continue" } }
const failed = (kind: FailureKind): Settled => ({ [SettledId]: true, ok: false, kind })
const RAISE = failed("raise")
const EXIT = failed("exit")
const TIMEOUT = failed("timeout")
const TIMEOUT_DETACHED: Settled = { [SettledId]: true, ok: false, kind: "timeout", detached: true }
const BAD = failed("bad_return")

/** The decoder's input, built on first use. */
type LazyInput = () => DecodeInput

const decode = (hook: ResolvedHook, input: LazyInput, value: unknown): Settled => {
  if (value === cont) return CONTINUED
  const verdict = decodeVerdict(input(), hook.kind, value)
  return verdict === BAD_RETURN ? BAD : { [SettledId]: true, ok: true, verdict }
}

const fromExit = (hook: ResolvedHook, input: LazyInput, exit: Exit.Exit<unknown, unknown>): Settled =>
  Exit.isSuccess(exit) ? decode(hook, input, exit.value) : Cause.hasInterruptsOnly(exit.cause) ? EXIT : RAISE

const deadline = (env: RunnerEnv, hook: ResolvedHook): number => hook.timeoutMs ?? env.hookTimeoutMs

const runEffect = (
  env: RunnerEnv,
  hook: ResolvedHook,
  input: LazyInput,
  effect: Effect.Effect<unknown, unknown, never>
): Settled | Effect.Effect<Settled> => {
  const program = env.hasContext ? Effect.provideContext(effect, env.context) : effect
  return Effect.map(runWithin(env.supervisor, program, deadline(env, hook)), (exit) =>
    isTimedOut(exit) ? (exit.detached ? TIMEOUT_DETACHED : TIMEOUT) : fromExit(hook, input, exit))
}

const runPromise = (
  env: RunnerEnv,
  hook: ResolvedHook,
  input: LazyInput,
  promise: PromiseLike<unknown>
): Effect.Effect<Settled> =>
  Effect.callback<Settled>((resume) => {
    try {
      promise.then(
        (value) => resume(Effect.succeed(decode(hook, input, value))),
        () => resume(Effect.succeed(RAISE))
      )
    } catch {
      resume(Effect.succeed(RAISE))
    }
  }).pipe(
    Effect.timeoutOption(deadline(env, hook)),
    Effect.map((settled) => (settled._tag === "Some" ? settled.value : TIMEOUT))
  )

const isThenable = (value: unknown): value is PromiseLike<unknown> => {
  try {
    return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function"
  } catch {
    return false
  }
}

/**
 * Runs one hook over `state`. Returns the outcome directly when the hook answered synchronously,
 * or an Effect to wait on. Never fails and never throws.
 */
export const invoke = <S>(
  env: RunnerEnv,
  hook: ResolvedHook,
  invocation: Invocation<S>,
  state: S
): Settled | Effect.Effect<Settled> => {
  let value: unknown
  try {
    value = invocation.call(hook.run, state, hook)
  } catch {
    return RAISE
  }
  if (value === cont) return CONTINUED
  const input = () => invocation.input(state, hook)
  if (Effect.isEffect(value)) return runEffect(env, hook, input, value as Effect.Effect<unknown, unknown, never>)
  if (isThenable(value)) return runPromise(env, hook, input, value)
  return decode(hook, input, value)
}
