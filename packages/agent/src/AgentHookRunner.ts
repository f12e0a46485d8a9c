/**
 * Runs the model-level hooks of one event, one at a time, with core's guarantees: each hook runs
 * in its own child fiber (interrupted with the run, so none is left behind) under its deadline
 * (Clock-driven, so TestClock controls it); a throw, a rejection, a failed or defective Effect, a
 * self-interruption, a missed deadline or a return outside the event's verdicts is a failure,
 * recorded by kind only. What a hook raised goes nowhere.
 */
import { Cause, Clock, Effect, Exit, Fiber, Schema } from "effect"
import { FailureKind, statusByTag, statusesOf } from "@interlock/core"
import { AGENT_EVENT_ROWS, AGENT_EVENTS, type AgentEvent, isObserveEvent } from "./AgentEvent.ts"
import { type AgentHook, BAD, type CompiledAgentHooks, decodeAgentVerdict, type DecodedVerdict } from "./AgentHooks.ts"
import type { AgentTool } from "./Catalog.ts"

/** One model-level hook run, as recorded on the RunResult. */
export const AgentHookRun = Schema.Struct({
  id: Schema.String,
  event: Schema.Literals(AGENT_EVENTS),
  status: Schema.Literals([...statusesOf(AGENT_EVENT_ROWS), "failed"]),
  failure: Schema.optional(FailureKind),
  /** True when a failure was ignored (observe-only events) and the run went on. */
  ignored: Schema.Boolean,
  durationMs: Schema.Number
})

/** One model-level hook run. */
export type AgentHookRun = typeof AgentHookRun.Type

/** How a chain of hooks ended. */
export type EventEnd<S> =
  | { readonly _tag: "Done"; readonly state: S }
  | { readonly _tag: "Stopped"; readonly state: S; readonly verdict: DecodedVerdict; readonly hook: AgentHook }
  | { readonly _tag: "Failed"; readonly hook: AgentHook; readonly kind: FailureKind }

/** What the runner needs from the run. */
export interface HookEnv {
  readonly hooks: CompiledAgentHooks
  readonly hookTimeoutMs: number
  /** Where hook runs are recorded. */
  readonly runs: Array<AgentHookRun>
}

/** How one event's chain feeds its hooks and folds their verdicts; return STOP to end on a verdict. */
export interface EventSpec<S> {
  readonly input: (state: S) => unknown
  readonly offered?: (state: S) => ReadonlyArray<AgentTool>
  readonly apply: (state: S, verdict: DecodedVerdict) => S | typeof STOP
}

/** Returned by an EventSpec's `apply` to end the chain on the verdict. */
export const STOP = Symbol.for("@interlock/agent/STOP")

type Outcome = { readonly ok: true; readonly verdict: DecodedVerdict } | { readonly ok: false; readonly kind: FailureKind }

const failure = (kind: FailureKind): Outcome => ({ ok: false, kind })

const STATUS = statusByTag(AGENT_EVENT_ROWS)

const isThenable = (value: unknown): value is PromiseLike<unknown> => {
  try {
    return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function"
  } catch {
    return false
  }
}

/** How long a timed-out hook's fiber is waited for once interrupted, before the run goes on without it. */
const RELEASE_GRACE_MS = 100

const release = (fiber: Fiber.Fiber<unknown, unknown>) => Effect.timeoutOption(Fiber.interrupt(fiber), RELEASE_GRACE_MS)

/** Awaits an asynchronous answer in a child fiber under the deadline; a timeout interrupts the fiber. */
const awaitAnswer = (
  answer: Effect.Effect<unknown, unknown>,
  millis: number,
  decode: (value: unknown) => Outcome
): Effect.Effect<Outcome> =>
  Effect.uninterruptibleMask((restore) =>
    // Detached, so that a hook ignoring interruption cannot hold the fiber that waits for it; it is
    // always interrupted when the wait ends, and waited for only within the grace.
    Effect.flatMap(Effect.forkDetach(answer, { startImmediately: true }), (fiber) =>
      restore(Effect.timeoutOption(Fiber.await(fiber), millis)).pipe(
        Effect.onInterrupt(() => release(fiber)),
        Effect.flatMap((settled): Effect.Effect<Outcome> => {
          // A hook that ignores interruption is given a short grace, then left behind: the run answers.
          if (settled._tag === "None") return Effect.as(release(fiber), failure("timeout"))
          const exit = settled.value
          if (Exit.isSuccess(exit)) return Effect.succeed(decode(exit.value))
          return Effect.succeed(failure(Cause.hasInterruptsOnly(exit.cause) ? "exit" : "raise"))
        })
      ))
  )

const invoke = (env: HookEnv, hook: AgentHook, input: unknown, offered: ReadonlyArray<AgentTool>): Effect.Effect<Outcome> => {
  const decode = (value: unknown): Outcome => {
    const verdict = decodeAgentVerdict(hook.event, value, offered)
    return verdict === BAD ? failure("bad_return") : { ok: true, verdict }
  }
  let value: unknown
  try {
    value = hook.run(input)
  } catch {
    return Effect.succeed(failure("raise"))
  }
  const millis = hook.timeoutMs ?? env.hookTimeoutMs
  if (Effect.isEffect(value)) return awaitAnswer(value as Effect.Effect<unknown, unknown>, millis, decode)
  if (isThenable(value)) return awaitAnswer(Effect.tryPromise(() => Promise.resolve(value)), millis, decode)
  return Effect.succeed(decode(value))
}

/**
 * Runs the hooks of `event` over `initial`. Observe-only events ignore (and record) failures;
 * every other event ends the chain with Failed, so the caller fails closed. Never fails.
 */
export const runEvent = <S>(env: HookEnv, event: AgentEvent, spec: EventSpec<S>, initial: S): Effect.Effect<EventEnd<S>> => {
  const hooks = env.hooks[event]
  if (hooks.length === 0) return Effect.succeed({ _tag: "Done", state: initial })
  return Effect.gen(function*() {
    let state = initial
    for (const hook of hooks) {
      const start = yield* Clock.currentTimeMillis
      const outcome = yield* invoke(env, hook, spec.input(state), spec.offered?.(state) ?? [])
      const durationMs = (yield* Clock.currentTimeMillis) - start
      if (!outcome.ok) {
        const ignored = isObserveEvent(event)
        env.runs.push({ id: hook.id, event, status: "failed", failure: outcome.kind, ignored, durationMs })
        if (ignored) continue
        return { _tag: "Failed", hook, kind: outcome.kind } as const
      }
      env.runs.push({ id: hook.id, event, status: STATUS[outcome.verdict._tag], ignored: false, durationMs })
      const next = spec.apply(state, outcome.verdict)
      if (next === STOP) return { _tag: "Stopped", state, verdict: outcome.verdict, hook } as const
      state = next
    }
    return { _tag: "Done", state } as const
  })
}
