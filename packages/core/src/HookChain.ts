/**
 * A chain of hooks for one event: runs the selected hooks one at a time, each seeing the previous
 * one's output, records each run (receipt, span, metrics), and applies the fail-closed rules:
 * a failure is ignored only for an observer or an `onError: "ignore"` post/failure hook, and never
 * for a guard or a required hook.
 */
import { Effect, type Fiber, type Tracer } from "effect"
import { type HookEvent, isInsideOut } from "./HookEvent.ts"
import type { ResolvedHook } from "./Hooks.ts"
import { type Invocation, invoke, isSettled, type RunnerEnv, type Settled } from "./HookRunner.ts"
import type { FailureKind, HookRun, HookStatus } from "./Receipt.ts"
import { elapsedMs, now, recordHook } from "./Telemetry.ts"
import type { Decoded } from "./VerdictDecoder.ts"

/** How a chain ended. */
export type ChainEnd<S> =
  | { readonly _tag: "Done"; readonly state: S }
  | { readonly _tag: "Stopped"; readonly state: S; readonly verdict: Decoded; readonly hook: ResolvedHook }
  | { readonly _tag: "Failed"; readonly state: S; readonly hook: ResolvedHook; readonly kind: FailureKind }

/** Returned by a chain's `apply` to end the chain on a verdict (Deny, Halt, Recover). */
export const STOP = Symbol.for("@interlock/core/HookChain/STOP")

/** How one event's chain feeds its hooks and folds their verdicts. */
export interface ChainSpec<S> extends Invocation<S> {
  readonly event: HookEvent
  readonly apply: (state: S, verdict: Decoded, hook: ResolvedHook) => S | typeof STOP
  /** Skips a hook that has nothing to work on (a listing hook that selects no listed tool). */
  readonly skip?: (state: S, hook: ResolvedHook) => boolean
}

/** What is being worked on, for telemetry attributes. */
export interface Subject {
  readonly serverId: string
  readonly name: string
  readonly callId: string
}

/** Where a chain records its runs. */
export interface Recorder {
  readonly fiber: Fiber.Fiber<unknown, unknown>
  readonly span: Tracer.Span | undefined
  readonly subject: Subject
  /** The receipt's hook runs, when the operation keeps a receipt. */
  readonly runs: Array<HookRun> | undefined
}

const STATUS: Record<Decoded["_tag"], HookStatus> = {
  Continue: "continue",
  Rewrite: "rewrite",
  RewriteArgs: "rewrite",
  Deny: "deny",
  Halt: "halt",
  Replace: "replace",
  ReplaceTools: "replace",
  Recover: "recover"
}

/** Whether a failure of this hook may be skipped. Guards and required hooks always fail closed. */
export const isIgnorable = (hook: ResolvedHook): boolean =>
  !hook.required && hook.kind !== "guard" &&
  (hook.kind === "observe" || (isInsideOut(hook.event) && hook.onError === "ignore"))

const record = (
  recorder: Recorder,
  hook: ResolvedHook,
  settled: Settled,
  ignored: boolean,
  start: number,
  end: number,
  suspended: boolean
): void => {
  const status: HookStatus = settled.ok ? STATUS[settled.verdict._tag] : "failed"
  const failure = settled.ok ? undefined : settled.kind
  recorder.runs?.push({ id: hook.id, event: hook.event, status, failure, ignored, durationMs: elapsedMs(start, end) })
  recordHook(recorder.fiber, recorder.span, hook, failure ?? status, recorder.subject, start, end, failure !== undefined, suspended)
}

/**
 * Runs `hooks` (already selected and in run order) over `initial`. Never fails. The spec is built
 * only when there are hooks to run, so an event without hooks costs no allocation.
 */
export const runChain = <S>(
  env: RunnerEnv,
  recorder: Recorder,
  hooks: ReadonlyArray<ResolvedHook>,
  initial: S,
  makeSpec: () => ChainSpec<S>
): Effect.Effect<ChainEnd<S>> => {
  if (hooks.length === 0) return Effect.succeed({ _tag: "Done", state: initial })
  const spec = makeSpec()
  return Effect.gen(function*() {
    let state = initial
    // Hooks run back to back, so one clock reading ends one hook and starts the next.
    let start = now()
    for (const hook of hooks) {
      if (spec.skip?.(state, hook) === true) continue
      const answer = invoke(env, hook, spec, state)
      const suspended = !isSettled(answer)
      const settled: Settled = isSettled(answer) ? answer : yield* answer
      const end = now()
      if (settled.ok) {
        record(recorder, hook, settled, false, start, end, suspended)
        const next = spec.apply(state, settled.verdict, hook)
        if (next === STOP) return { _tag: "Stopped", state, verdict: settled.verdict, hook } as const
        state = next
        start = end
        continue
      } else {
        const ignored = isIgnorable(hook)
        record(recorder, hook, settled, ignored, start, end, suspended)
        if (!ignored) return { _tag: "Failed", state, hook, kind: settled.kind } as const
      }
      start = end
    }
    return { _tag: "Done", state } as const
  })
}

/** A bounded cache of which hooks select a (serverId, name) pair, per event. */
export const makeSelector = (byEvent: { readonly [E in HookEvent]: ReadonlyArray<ResolvedHook> }) => {
  const caches = new Map<HookEvent, Map<string, ReadonlyArray<ResolvedHook>>>()
  const LIMIT = 10_000
  return (event: HookEvent, serverId: string, name: string): ReadonlyArray<ResolvedHook> => {
    const all = byEvent[event]
    if (all.length === 0) return all
    let cache = caches.get(event)
    if (cache === undefined) {
      cache = new Map()
      caches.set(event, cache)
    }
    const key = `${serverId}\u0000${name}`
    let selected = cache.get(key)
    if (selected === undefined) {
      selected = all.filter((hook) => hook.matcher.test(serverId, name))
      if (cache.size >= LIMIT) cache.clear()
      cache.set(key, selected)
    }
    return selected
  }
}
