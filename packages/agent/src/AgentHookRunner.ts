/**
 * Runs the model-level hooks of one event, one at a time, through core's HookRunner: an Effect hook runs in its
 * own fiber beside the run, interrupted at its Clock-driven deadline and waited for a short grace. A throw, a
 * rejection, a failed Effect, a self-interruption, a missed deadline or a return outside the event's verdicts is a
 * failure, recorded by kind only; what a hook raised goes nowhere.
 */
import { FailureKind, HookRunner, statusByTag, statusesOf } from "@interlock/core"
import { Clock, Effect, Schema } from "effect"
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
  /** Whether the text an afterModelChunk hook is given ends there (Hold is then refused). */
  readonly final?: (state: S) => boolean
  readonly apply: (state: S, verdict: DecodedVerdict) => S | typeof STOP
}

/** Returned by an EventSpec's `apply` to end the chain on the verdict. */
export const STOP = Symbol.for("@interlock/agent/STOP")

const STATUS = statusByTag(AGENT_EVENT_ROWS)

/** How long a timed-out hook's fiber is waited for once interrupted, before the run goes on without it. */
const RELEASE_GRACE_MS = 100

/** Hook fibers run beside the run (interrupted with it); at the deadline they are interrupted and given the grace. */
const FIBERS = HookRunner.beside(RELEASE_GRACE_MS)

/** How one event's hooks are called: with the event's input, their verdicts decoded against the tools offered. */
const invocation = <S>(env: HookEnv, spec: EventSpec<S>): HookRunner.Invocation<S, AgentHook, DecodedVerdict> => ({
  call: (state, hook) => hook.run(spec.input(state)),
  decode: (value, state, hook) => {
    const verdict = decodeAgentVerdict(hook.event, value, spec.offered?.(state) ?? [], spec.final?.(state) ?? false)
    return verdict === BAD ? HookRunner.BAD_RETURN : verdict
  },
  deadlineMs: (hook) => hook.timeoutMs ?? env.hookTimeoutMs,
  fibers: FIBERS
})

/**
 * Runs the hooks of `event` over `initial`. Observe-only events ignore (and record) failures;
 * every other event ends the chain with Failed, so the caller fails closed. Never fails.
 */
export const runEvent = <S>(
  env: HookEnv,
  event: AgentEvent,
  spec: EventSpec<S>,
  initial: S
): Effect.Effect<EventEnd<S>> => {
  const hooks = env.hooks[event]
  if (hooks.length === 0) return Effect.succeed({ _tag: "Done", state: initial })
  const calls = invocation(env, spec)
  return Effect.gen(function*() {
    let state = initial
    for (const hook of hooks) {
      const start = yield* Clock.currentTimeMillis
      const answer = HookRunner.invoke(calls, state, hook)
      const outcome = HookRunner.isSettled(answer) ? answer : yield* answer
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
