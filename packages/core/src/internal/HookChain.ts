/**
 * A chain of hooks for one event: runs the selected hooks one at a time, each seeing the previous
 * one's output, records each run (receipt, span, metrics), and applies the fail-closed rules:
 * a failure is ignored only for an observer or an `onError: "ignore"` post/failure hook, and never
 * for a guard or a required hook.
 */
import { type Context, Effect, type Fiber, type Tracer } from "effect"
import { type FailureRule, statusByTag } from "../hooks/EventRegistry.ts"
import type { AnyHookFunction } from "../hooks/HookConfig.ts"
import { HOOK_EVENT_ROWS, HOOK_EVENTS, type HookEvent } from "../hooks/HookEvent.ts"
import {
  type Fibers,
  type Invocation,
  invoke,
  isSettled,
  passing,
  type Settled,
  supervised
} from "../hooks/HookRunner.ts"
import type { ResolvedHook } from "../hooks/Hooks.ts"
import { cont } from "../hooks/Verdict.ts"
import { type Decoded, type DecodeInput, decodeVerdict } from "../hooks/VerdictDecoder.ts"
import { Denied, HookFailed } from "../model/Errors.ts"
import type { FailureKind, HookRun, HookStatus } from "../model/Receipt.ts"
import { elapsedMs, now, recordHook, type SpanSubject } from "../program/Telemetry.ts"
import { type BoundedCache, makeBoundedCache } from "./BoundedCache.ts"
import type { Supervisor } from "./Supervisor.ts"
import * as SyncOrEffect from "./SyncOrEffect.ts"

/** How a chain ended. */
export type ChainEnd<S> =
  | { readonly _tag: "Done"; readonly state: S }
  | { readonly _tag: "Stopped"; readonly state: S; readonly verdict: Decoded; readonly hook: ResolvedHook }
  | { readonly _tag: "Failed"; readonly state: S; readonly hook: ResolvedHook; readonly kind: FailureKind }

/** Returned by a chain's `apply` to end the chain on a verdict (Deny, Halt, Recover). */
export const STOP = Symbol.for("@interlock/core/HookChain/STOP")

/** How to call the hooks of one event over a state, and what their verdicts are decoded against. */
export interface HookCall<S> {
  /** Calls a hook function with the event's arguments (no argument array is built). */
  readonly call: (run: AnyHookFunction, state: S, hook: ResolvedHook) => unknown
  /** What a verdict is decoded against; built only when a hook answers something other than Continue. */
  readonly input: (state: S, hook: ResolvedHook) => DecodeInput
}

/** What a chain needs from the client. */
export interface RunnerEnv {
  /** Where the client's hook fibers run, supervised. */
  readonly supervisor: Supervisor
  /** Default deadline in ms (the client's hookTimeout). */
  readonly hookTimeoutMs: number
  /** Services for Effect hooks, captured when the Layer was built. */
  readonly context: Context.Context<never>
  readonly hasContext: boolean
}

const CONTINUED = passing<Decoded>(cont, { _tag: "Continue" })

/** How one chain runs its hooks through the hook runner: one per chain, so a hook's call allocates nothing. */
class ChainInvocation<S> implements Invocation<S, ResolvedHook, Decoded> {
  readonly pass = CONTINUED
  readonly env: RunnerEnv
  readonly spec: HookCall<S>
  constructor(env: RunnerEnv, spec: HookCall<S>) {
    this.env = env
    this.spec = spec
  }
  call(state: S, hook: ResolvedHook): unknown {
    return this.spec.call(hook.run, state, hook)
  }
  decode(value: unknown, state: S, hook: ResolvedHook) {
    return decodeVerdict(this.spec.input(state, hook), hook.kind, value)
  }
  deadlineMs(hook: ResolvedHook): number {
    return hook.timeoutMs ?? this.env.hookTimeoutMs
  }
  /** Read only when a hook answers with an Effect. */
  get fibers(): Fibers {
    return supervised(this.env.supervisor)
  }
  get context(): Context.Context<never> | undefined {
    return this.env.hasContext ? this.env.context : undefined
  }
}

/** How one event's chain feeds its hooks and folds their verdicts. */
export interface ChainSpec<S> extends HookCall<S> {
  readonly event: HookEvent
  readonly apply: (state: S, verdict: Decoded, hook: ResolvedHook) => S | typeof STOP
  /** Skips a hook that has nothing to work on (a listing hook that selects no listed tool). */
  readonly skip?: (state: S, hook: ResolvedHook) => boolean
}

/** Where a chain records its runs. */
export interface Recorder {
  readonly fiber: Fiber.Fiber<unknown, unknown>
  readonly span: Tracer.Span | undefined
  readonly subject: SpanSubject
  /** The receipt's hook runs, when the operation keeps a receipt. */
  readonly runs: Array<HookRun> | undefined
}

const BY_TAG = statusByTag(HOOK_EVENT_ROWS)

// RewriteArgs is how the decoder hands over promptGet's Rewrite.
const STATUS: Record<Decoded["_tag"], HookStatus> = { ...BY_TAG, RewriteArgs: BY_TAG.Rewrite }

/**
 * Whether a failure of this hook may be skipped, by its event's failure rule. Guards and required
 * hooks always fail closed; an observer's failure is always skipped.
 */
const isIgnorable = (hook: ResolvedHook): boolean => {
  if (hook.required || hook.kind === "guard") return false
  const rule = HOOK_EVENT_ROWS[hook.event].failure as FailureRule
  return hook.kind === "observe" || rule === "observe" || (rule === "onError" && hook.onError === "ignore")
}

const record = (
  recorder: Recorder,
  hook: ResolvedHook,
  settled: Settled<Decoded>,
  ignored: boolean,
  start: number,
  end: number,
  suspended: boolean
): void => {
  const status: HookStatus = settled.ok ? STATUS[settled.verdict._tag] : "failed"
  const failure = settled.ok ? undefined : settled.kind
  const detached = !settled.ok && settled.detached === true
  const run: HookRun = { id: hook.id, event: hook.event, status, failure, ignored, durationMs: elapsedMs(start, end) }
  const note = settled.ok && settled.verdict._tag === "Continue" ? settled.verdict.note : undefined
  // The keys are there only when set: a receipt of a run that was not detached and noted nothing looks as it always
  // did.
  recorder.runs?.push(
    detached ? { ...run, detached } : note === undefined ? run : { ...run, note }
  )
  recordHook({
    fiber: recorder.fiber,
    parent: recorder.span,
    hook,
    verdict: failure ?? status,
    subject: recorder.subject,
    start,
    end,
    failed: failure !== undefined,
    suspended,
    detached
  })
}

/** Where a chain is: the state so far and when the current hook started. */
interface Cursor<S> {
  state: S
  start: number
}

/** Folds one settled hook into the cursor; returns the chain's end when the hook ends it. */
const settle = <S>(
  recorder: Recorder,
  spec: ChainSpec<S>,
  hook: ResolvedHook,
  settled: Settled<Decoded>,
  cursor: Cursor<S>,
  suspended: boolean
): ChainEnd<S> | undefined => {
  const end = now()
  const start = cursor.start
  cursor.start = end
  if (settled.ok) {
    record(recorder, hook, settled, false, start, end, suspended)
    const next = spec.apply(cursor.state, settled.verdict, hook)
    if (next === STOP) return { _tag: "Stopped", state: cursor.state, verdict: settled.verdict, hook }
    cursor.state = next
    return undefined
  }
  const ignored = isIgnorable(hook)
  record(recorder, hook, settled, ignored, start, end, suspended)
  return ignored ? undefined : { _tag: "Failed", state: cursor.state, hook, kind: settled.kind }
}

/**
 * Runs `hooks` (already selected and in run order) over `initial`. Never fails. Answers directly
 * while every hook answers synchronously, and with an Effect from the first hook that suspends:
 * a chain of plain functions costs no Effect at all. The spec is built only when there are hooks.
 */
export const runChain = <S>(
  env: RunnerEnv,
  recorder: Recorder,
  hooks: ReadonlyArray<ResolvedHook>,
  initial: S,
  makeSpec: () => ChainSpec<S>
): ChainEnd<S> | Effect.Effect<ChainEnd<S>> => {
  if (hooks.length === 0) return { _tag: "Done", state: initial }
  const spec = makeSpec()
  const invocation = new ChainInvocation(env, spec)
  // Hooks run back to back, so one clock reading ends one hook and starts the next.
  const cursor: Cursor<S> = { state: initial, start: now() }
  const loop = (from: number): ChainEnd<S> | Effect.Effect<ChainEnd<S>> => {
    for (let i = from; i < hooks.length; i++) {
      const hook = hooks[i]
      if (spec.skip?.(cursor.state, hook) === true) continue
      const answer = invoke(invocation, cursor.state, hook)
      if (!isSettled(answer)) {
        return Effect.flatMap(answer, (settled) => {
          const ended = settle(recorder, spec, hook, settled, cursor, true)
          if (ended !== undefined) return Effect.succeed(ended)
          const rest = loop(i + 1)
          return Effect.isEffect(rest) ? rest : Effect.succeed(rest)
        })
      }
      const ended = settle(recorder, spec, hook, answer, cursor, false)
      if (ended !== undefined) return ended
    }
    return { _tag: "Done", state: cursor.state }
  }
  return loop(0)
}

/** The chain's end, whether it answered at once or through an Effect. */
export const awaitChain: <S>(end: ChainEnd<S> | Effect.Effect<ChainEnd<S>>) => Effect.Effect<ChainEnd<S>> =
  SyncOrEffect.toEffect

/**
 * The error a gating chain (pre-call, resource, prompt) ends in, or undefined when it let the
 * operation go on: a failed hook fails it, and any stop (a Deny) denies it. Fails closed: a stop
 * that its caller does not handle first is a denial.
 */
export const refusal = (end: ChainEnd<unknown>, event: HookEvent): Denied | HookFailed | undefined => {
  if (end._tag === "Failed") return new HookFailed({ hookId: end.hook.id, event, kind: end.kind })
  if (end._tag === "Done") return undefined
  const message = end.verdict._tag === "Deny" ? end.verdict.reason : "denied"
  return new Denied({ reason: { _tag: "HookDenied", hookId: end.hook.id, message } })
}

/** The selection cache's bound: 4 MiB (estimated; keys, hook lists and a per-entry overhead). */
export const SELECTION_CACHE_BYTES = 4 * 1024 * 1024

/** A (serverId, name) pair longer than this (UTF-16 code units, both together) is never cached. */
export const SELECTION_CACHE_MAX_LENGTH = 512

/** A selector: which hooks of an event select (serverId, name), in run order. */
export interface Selector {
  (event: HookEvent, serverId: string, name: string): ReadonlyArray<ResolvedHook>
  /** The cache's estimated size in bytes (internal, for tests). */
  readonly cacheBytes: () => number
}

/** A byte-bounded cache of which hooks select a (serverId, name) pair, per event (the bound is shared out evenly). */
export const makeSelector = (byEvent: { readonly [E in HookEvent]: ReadonlyArray<ResolvedHook> }): Selector => {
  const caches = new Map<HookEvent, BoundedCache<ReadonlyArray<ResolvedHook>>>()
  const select = (event: HookEvent, serverId: string, name: string): ReadonlyArray<ResolvedHook> => {
    const all = byEvent[event]
    if (all.length === 0) return all
    let cache = caches.get(event)
    if (cache === undefined) {
      cache = makeBoundedCache({
        maxBytes: SELECTION_CACHE_BYTES / HOOK_EVENTS.length,
        maxKeyLength: SELECTION_CACHE_MAX_LENGTH,
        costOf: (hooks) => 8 * hooks.length
      })
      caches.set(event, cache)
    }
    const key = `${serverId}\u0000${name}`
    return cache.get(key) ?? cache.set(key, all.filter((hook) => hook.matcher.restrictTest(serverId, name)))
  }
  const cacheBytes = () => {
    let bytes = 0
    for (const cache of caches.values()) bytes += cache.bytes()
    return bytes
  }
  return Object.assign(select, { cacheBytes })
}
