/**
 * Interceptors as core hooks: one hook per interceptor per core event it selects, declared so that
 * core's chain runs them in the SEP's order (ExecutionModel.ts). Each hook invokes its interceptor
 * and answers the verdict its step stands for; core's rules then check that verdict as any hook's.
 */
import { Canonical, HOOK_EVENT_ROWS, type HookEvent, type HooksConfig, type JsonObject, Verdict } from "@interlock/core"
import { Clock, Effect } from "effect"
import { decide, type Member, type Outcome, runOrder, verdictOf } from "./ExecutionModel.ts"
import type { ExtensionRequest } from "./ExtensionRequest.ts"
import { invokeInterceptor } from "./InterceptorClient.ts"
import { InterceptorFailed } from "./InterceptorErrors.ts"
import {
  type Binding,
  BINDINGS,
  callMutated,
  callPayload,
  isWildcard,
  type Mutated,
  promptMutated,
  promptPayload,
  readMutated,
  readPayload,
  resultMutated,
  resultPayload,
  selects,
  toolsMutated,
  toolsPayload,
  withheld
} from "./InterceptorEvents.ts"
import type { Phase } from "./InterceptorWire.ts"

/** An interceptor of one server, with the events the operator runs it on (undefined: all it hooks). */
export interface BoundInterceptor extends Member {
  readonly serverId: string
  readonly events: ReadonlySet<string> | undefined
}

/** One invocation's verdict, as recorded (span, listener): never its payload, only a shadow mutation's digest. */
export interface VerdictRecord {
  readonly serverId: string
  readonly interceptor: string
  readonly event: string
  readonly phase: Phase
  readonly hook: HookEvent
  readonly mode: "enforce" | "audit"
  /** `valid`, `invalid:<severity>`, `modified`, `unmodified` or `failed:<kind>`. */
  readonly verdict: string
  readonly durationMs: number
  /** An audit-mode mutator's unapplied payload: SHA-256 of its canonical JSON. */
  readonly shadowDigest?: string
}

/** An (event, phase) an interceptor names that Interlock has no hook for: it is not run there. */
export interface Unsupported {
  readonly serverId: string
  readonly interceptor: string
  readonly event: string
  readonly phase: Phase
}

/** What the hooks are built with. */
export interface HookSettings {
  readonly request: ExtensionRequest
  /** The hook deadline: an interceptor that has not answered by then has failed. */
  readonly timeoutMs: number
  readonly onVerdict?: ((record: VerdictRecord) => void) | undefined
}

/**
 * How much longer than the deadline a hook that must not fail closed may take: its own request
 * ends at the deadline, so that its failure is its own to skip and not core's timeout.
 */
export const GRACE_MS = 250

const failsClosed = (member: Member): boolean => !member.descriptor.audit && !member.failOpen

/**
 * Whether the interceptor hooks `binding` (its phase, its event or a wildcard of it) and the operator runs it there.
 */
const selected = (member: BoundInterceptor, binding: Binding): boolean =>
  (member.events === undefined || member.events.has(binding.event)) &&
  member.descriptor.hooked.some((h) => h.phase === binding.phase && selects(h.event, h.phase, binding.event))

const record = (settings: HookSettings, member: BoundInterceptor, binding: Binding, outcome: Outcome, ms: number) =>
  Effect.suspend(() => {
    const payload = outcome._tag === "Mutation" && outcome.result.modified ? outcome.result.payload : undefined
    const digest = member.descriptor.audit && payload !== undefined ? Canonical.digestJson(payload) : undefined
    const entry: VerdictRecord = {
      serverId: member.serverId,
      interceptor: member.descriptor.name,
      event: binding.event,
      phase: binding.phase,
      hook: binding.hook,
      mode: member.descriptor.audit ? "audit" : "enforce",
      verdict: verdictOf(outcome),
      durationMs: ms,
      ...(typeof digest === "string" ? { shadowDigest: digest } : {})
    }
    try {
      settings.onVerdict?.(entry)
    } catch {
      // A listener's failure is its own.
    }
    return Effect.as(
      Effect.annotateCurrentSpan({
        "interlock.interceptor.verdict": entry.verdict,
        ...(entry.shadowDigest === undefined ? {} : { "interlock.interceptor.shadow_digest": entry.shadowDigest })
      }),
      entry
    )
  })

/**
 * What a passing step notes on its receipt run: an audit-mode verdict, or a failure it did not fail
 * closed on (never the payload; a shadow mutation only as its digest).
 */
const passed = (entry: VerdictRecord, failed: boolean): Verdict.Continue =>
  entry.mode === "audit" || failed
    ? Verdict.note(
      `${entry.mode} ${entry.verdict}${entry.shadowDigest === undefined ? "" : ` shadow sha256:${entry.shadowDigest}`}`
    )
    : Verdict.continue

/** Invokes one interceptor on a payload and answers what its step means for this event, as a core verdict. */
const step = <V>(
  settings: HookSettings,
  member: BoundInterceptor,
  binding: Binding,
  payload: JsonObject,
  mutated: (payload: unknown) => Mutated<V>,
  blocked: (reason: string) => V
): Effect.Effect<V | Verdict.Continue, InterceptorFailed> =>
  Effect.gen(function*() {
    const { descriptor, serverId } = member
    const start = yield* Clock.currentTimeMillis
    const answer: Outcome = yield* invokeInterceptor(settings.request, serverId, descriptor, {
      name: descriptor.name,
      event: binding.event,
      phase: binding.phase,
      payload,
      timeoutMs: settings.timeoutMs,
      context: { timestamp: new Date(start).toISOString() }
    }, failsClosed(member) ? settings.timeoutMs + GRACE_MS : settings.timeoutMs).pipe(
      Effect.catch((error) => Effect.succeed({ _tag: "Failed", kind: error.kind } as const))
    )
    // A mutation applies only as this event's payload, and only as Interlock's rules allow (InterceptorEvents.ts).
    const applied = answer._tag === "Mutation" && answer.result.modified && !descriptor.audit
      ? mutated(answer.result.payload)
      : undefined
    const outcome: Outcome = applied?._tag === "Junk" ? { _tag: "Failed", kind: "junk" } : answer
    const entry = yield* record(settings, member, binding, outcome, (yield* Clock.currentTimeMillis) - start)
    const pass = passed(entry, outcome._tag === "Failed")
    if (applied?._tag === "Refused") return blocked(`interceptor ${JSON.stringify(descriptor.name)} ${applied.why}`)
    const next = decide(member, binding.phase, outcome)
    switch (next._tag) {
      case "Pass":
        return pass
      case "Block":
        return blocked(next.reason)
      case "Mutate":
        return applied?._tag === "Apply" ? applied.verdict : pass
      case "Fail":
        return yield* new InterceptorFailed({
          serverId,
          interceptor: descriptor.name,
          kind: next.kind,
          detail: "the interceptor failed and fails closed"
        })
    }
  }).pipe(
    Effect.withSpan("interlock.interceptor", {
      attributes: {
        "interlock.interceptor": member.descriptor.name,
        "interlock.interceptor.server": member.serverId,
        "interlock.interceptor.event": binding.event,
        "interlock.interceptor.phase": binding.phase,
        "interlock.interceptor.mode": member.descriptor.audit ? "audit" : "enforce"
      }
    })
  )

/**
 * The hook function of one interceptor on one binding: the event's payload in, the event's verdict
 * out. `stopped` holds the calls whose result an interceptor withheld: core's postToolCall has no
 * stop, so the later interceptors of that call pass (SEP: a validation error prevents the mutations).
 */
const runOf = (settings: HookSettings, member: BoundInterceptor, binding: Binding, stopped: WeakSet<object>) => {
  const on = <V>(payload: JsonObject, mutated: (p: unknown) => Mutated<V>, blocked: (reason: string) => V) =>
    step(settings, member, binding, payload, mutated, blocked)
  switch (binding.hook) {
    case "preToolCall":
      return (call: Parameters<typeof callPayload>[0]) =>
        on(callPayload(call), (p) => callMutated(call, p), Verdict.deny)
    case "postToolCall":
      return (call: object, result: Parameters<typeof resultPayload>[0]) =>
        stopped.has(call) ? Effect.succeed(Verdict.continue) : on(resultPayload(result), resultMutated, (reason) => {
          stopped.add(call)
          return withheld(reason)
        })
    case "toolsListed":
      // A listing has no Deny: a blocked one lists nothing.
      return (tools: Parameters<typeof toolsPayload>[0]) =>
        on(toolsPayload(tools), (p) => toolsMutated(tools, p), () => Verdict.replaceTools([]))
    case "resourceRead":
      return (uri: string) => on(readPayload(uri), (p) => readMutated(uri, p), Verdict.deny)
    case "promptGet":
      return (name: string, args: JsonObject) =>
        on(promptPayload(name, args), (p) => promptMutated(name, p), Verdict.deny)
    case "toolCallFailed":
      return () => Effect.succeed(Verdict.continue)
  }
}

/** The hook id of an interceptor on a core event (hook ids are unique across events). */
export const hookId = (name: string, hook: HookEvent): string => `interceptor:${name}:${hook}`

/** The hooks for a set of interceptors, and what they name that Interlock cannot run. */
export const interceptorHooks = (
  members: ReadonlyArray<BoundInterceptor>,
  settings: HookSettings
): { readonly hooks: HooksConfig; readonly unsupported: ReadonlyArray<Unsupported> } => {
  const hooks: Record<string, Array<unknown>> = {}
  const stopped = new WeakSet<object>()
  for (const binding of BINDINGS) {
    const ordered = runOrder(members.filter((member) => selected(member, binding)), binding.phase)
    // Core runs an inside-out event's hooks last declared first: declared reversed, they run in the SEP's order.
    const declared = HOOK_EVENT_ROWS[binding.hook].order === "inside-out" ? [...ordered].reverse() : ordered
    if (declared.length === 0) continue
    hooks[binding.hook] = declared.map((member) => ({
      match: "*",
      id: hookId(member.descriptor.name, binding.hook),
      timeout: failsClosed(member) ? settings.timeoutMs : settings.timeoutMs + GRACE_MS,
      ...(member.descriptor.audit ? { kind: "observe" } : {}),
      // On a post-call event, a failure that does not fail closed is core's onError "ignore".
      ...(HOOK_EVENT_ROWS[binding.hook].failure === "onError"
        ? { onError: failsClosed(member) ? "fail" : "ignore" }
        : {}),
      run: runOf(settings, member, binding, stopped)
    }))
  }
  const unsupported = members.flatMap((member) =>
    member.descriptor.hooked.filter((h) =>
      !isWildcard(h.event) && (member.events === undefined || member.events.has(h.event)) &&
      !BINDINGS.some((b) => b.event === h.event && b.phase === h.phase)
    ).map((h) => ({ serverId: member.serverId, interceptor: member.descriptor.name, event: h.event, phase: h.phase }))
  )
  return { hooks: hooks as HooksConfig, unsupported }
}

/**
 * Another hooks config with interceptor hooks added where they see what the rest of the pipeline
 * made: after its hooks on an outside-in event (the request side), before them on an inside-out one
 * (so they run after them, on the result as redacted).
 */
export const withInterceptorHooks = (own: HooksConfig, interceptors: HooksConfig): HooksConfig => {
  const out: Record<string, ReadonlyArray<unknown>> = { ...own }
  for (const [event, entries] of Object.entries(interceptors)) {
    if (entries === undefined) continue
    const mine = (own as Record<string, ReadonlyArray<unknown> | undefined>)[event] ?? []
    out[event] = HOOK_EVENT_ROWS[event as HookEvent].order === "inside-out"
      ? [...entries, ...mine]
      : [...mine, ...entries]
  }
  return out as HooksConfig
}
