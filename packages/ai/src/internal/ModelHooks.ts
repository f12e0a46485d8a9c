/**
 * The adapters' model-level hooks: beforeModel, afterModel and afterModelChunk, one row each in core's event registry,
 * given the framework's own messages. A hook is a function of its input or `{ run, id?, timeout? }`, run through core's
 * HookRunner under its deadline; a raise, a timeout or an answer outside its row fails closed (afterModel only
 * observes). What a hook raised goes nowhere.
 */
import {
  acceptsVerdict,
  ConfigError,
  defineEvents,
  eventNames,
  type EventRow,
  type FailureKind,
  HookRunner,
  isDeadline,
  toMillis,
  verdictSchema
} from "@interlock/core"
import { type Duration, Effect, Schema } from "effect"

/** What a Rewrite or Hold is checked against: the tools offered, whether the text ends, what a message is. */
export interface Facts {
  readonly tools: ReadonlyArray<string>
  readonly final: boolean
  readonly isMessage: (value: unknown) => boolean
}

const Continue = { schema: verdictSchema("Continue", {}), status: "continue" } as const
const Deny = { schema: verdictSchema("Deny", { reason: Schema.String }), status: "deny" } as const
const Block = { schema: verdictSchema("Block", { reason: Schema.String }), status: "block" } as const
const Hold = {
  schema: verdictSchema("Hold", {}),
  status: "hold",
  check: (_v: unknown, facts: Facts): boolean => !facts.final
} as const
const RewriteText = { schema: verdictSchema("Rewrite", { text: Schema.String }), status: "rewrite" } as const

/** New messages (the framework's own) and/or a subset of the offered tools, by name: a hook cannot invent a tool. */
const Rewrite = {
  schema: verdictSchema("Rewrite", {
    messages: Schema.optional(Schema.Array(Schema.Unknown)),
    tools: Schema.optional(Schema.Array(Schema.String))
  }).check(
    Schema.makeFilter((v) => v.messages !== undefined || v.tools !== undefined, { expected: "messages or tools" })
  ),
  status: "rewrite",
  check: (
    v: { readonly messages?: ReadonlyArray<unknown> | undefined; readonly tools?: ReadonlyArray<string> | undefined },
    facts: Facts
  ): boolean =>
    (v.tools === undefined || v.tools.every((name) => facts.tools.includes(name))) &&
    (v.messages === undefined || v.messages.every(facts.isMessage))
} as const

const gate = { args: ["input"], order: "outside-in", failure: "closed" } as const

/** The adapters' model-level events. */
export const MODEL_EVENT_ROWS = defineEvents({
  beforeModel: { ...gate, verdicts: { Continue, Rewrite, Deny } },
  afterModel: { args: ["input"], verdicts: { Continue }, order: "outside-in", failure: "observe" },
  afterModelChunk: { ...gate, verdicts: { Continue, Rewrite: RewriteText, Hold, Block } }
})

/** One model-level event of the adapters. */
export type ModelEvent = keyof typeof MODEL_EVENT_ROWS

const EVENTS = eventNames(MODEL_EVENT_ROWS)

type Rows = typeof MODEL_EVENT_ROWS

/** A verdict of `E` as decoded (its row's Schema and check passed). */
export type VerdictOf<E extends ModelEvent> = {
  [T in keyof Rows[E]["verdicts"]]: Rows[E]["verdicts"][T] extends { readonly schema: { readonly Type: infer V } } ? V
    : never
}[keyof Rows[E]["verdicts"]]

/** One entry as a user writes it: a function of the event's input, or the function with an id and a deadline. */
export type ModelHookEntry<I, V> =
  | ((input: I) => V | PromiseLike<V> | Effect.Effect<V, unknown, never>)
  | {
    readonly run: (input: I) => V | PromiseLike<V> | Effect.Effect<V, unknown, never>
    /** Names the hook in errors; default `<event>[<index>]`. Unique. */
    readonly id?: string
    /** Its deadline; default the adapter's `hookTimeout` (5 s). */
    readonly timeout?: Duration.Input
  }

/** One compiled hook. */
export interface ModelHook {
  readonly id: string
  readonly run: (input: unknown) => unknown
  readonly timeoutMs: number
}

/** Compiled hooks, per event, in declaration order. */
export type ModelHooks = { readonly [E in ModelEvent]: ReadonlyArray<ModelHook> }

const DEFAULT_TIMEOUT_MS = 5_000

const compileEntry = (where: string, raw: unknown, fallbackMs: number, ids: Set<string>): ModelHook => {
  const fail = (detail: string) => new ConfigError({ path: where, detail })
  const entry = typeof raw === "function" ? { run: raw } : raw
  if (typeof entry !== "object" || entry === null) throw fail("an entry must be a function or { run, id?, timeout? }")
  const { run, id = where, timeout, ...rest } = entry as { run?: unknown; id?: unknown; timeout?: unknown }
  const unknown = Object.keys(rest)[0]
  if (unknown !== undefined) throw fail(`unknown option "${unknown}"`)
  if (typeof run !== "function") throw fail("run must be a function")
  if (typeof id !== "string" || id.length === 0) throw fail("id must be a non-empty string")
  if (ids.has(id)) throw fail(`duplicate hook id "${id}"`)
  const timeoutMs = timeout === undefined ? fallbackMs : toMillis(timeout as Duration.Input)
  if (!isDeadline(timeoutMs)) throw fail("timeout must be a positive, finite duration")
  ids.add(id)
  return { id, run: run as (input: unknown) => unknown, timeoutMs }
}

/** Compiles a model hooks config; throws a ConfigError naming the entry at fault (an unknown event included). */
export const compileModelHooks = (config: object | undefined, hookTimeout?: Duration.Input): ModelHooks => {
  const fallbackMs = hookTimeout === undefined ? DEFAULT_TIMEOUT_MS : toMillis(hookTimeout)
  if (!isDeadline(fallbackMs)) throw new ConfigError({ path: "hookTimeout", detail: "must be a positive duration" })
  const byEvent: Record<ModelEvent, Array<ModelHook>> = { beforeModel: [], afterModel: [], afterModelChunk: [] }
  const ids = new Set<string>()
  for (const [event, entries] of Object.entries(config ?? {})) {
    if (!Object.hasOwn(byEvent, event)) {
      throw new ConfigError({ path: event, detail: `not a model event (${EVENTS.join(", ")})` })
    }
    if (!Array.isArray(entries)) throw new ConfigError({ path: event, detail: "must be an array of hook entries" })
    byEvent[event as ModelEvent] = entries.map((raw, i) => compileEntry(`${event}[${i}]`, raw, fallbackMs, ids))
  }
  return byEvent
}

/** How a chain ended: every hook passed (with the state they left), one stopped it on its verdict, or one failed. */
export type ChainEnd<S, E extends ModelEvent> =
  | { readonly _tag: "Done"; readonly state: S }
  | { readonly _tag: "Stopped"; readonly verdict: VerdictOf<E>; readonly hookId: string }
  | { readonly _tag: "Failed"; readonly hookId: string; readonly kind: FailureKind }

/** Returned by a chain's `apply` to end it on the verdict. */
export const STOP = Symbol.for("@interlock/ai/STOP")

/** How one event's chain feeds its hooks and folds their verdicts. */
export interface ChainSpec<S, E extends ModelEvent> {
  readonly input: (state: S) => unknown
  readonly facts: (state: S) => Facts
  readonly apply: (state: S, verdict: VerdictOf<E>) => S | typeof STOP
}

/**
 * A row's decoder, built once: the value when one of its verdicts accepts it (Schema and check), else BAD_RETURN. Never
 * throws: a hook's answer may be a Proxy or have getters.
 */
const decoderOf = (row: EventRow): (value: unknown, facts: Facts) => unknown => {
  const byTag = new Map(
    Object.entries(row.verdicts).map(([tag, verdict]) => [tag, {
      accepts: acceptsVerdict(verdict.schema),
      // A check is typed by its row; here it is given the facts of that row's hooks.
      check: verdict.check as ((verdict: unknown, facts: Facts) => boolean) | undefined
    }])
  )
  return (value, facts) => {
    try {
      const tag = typeof value === "object" && value !== null ? (value as { readonly _tag?: unknown })._tag : undefined
      const verdict = typeof tag === "string" ? byTag.get(tag) : undefined
      return verdict?.accepts(value) && (verdict.check?.(value, facts) ?? true)
        ? value
        : HookRunner.BAD_RETURN
    } catch {
      return HookRunner.BAD_RETURN
    }
  }
}

const DECODERS = {
  beforeModel: decoderOf(MODEL_EVENT_ROWS.beforeModel),
  afterModel: decoderOf(MODEL_EVENT_ROWS.afterModel),
  afterModelChunk: decoderOf(MODEL_EVENT_ROWS.afterModelChunk)
}

/** How long a timed-out hook's fiber is waited for once interrupted. */
const FIBERS = HookRunner.beside(100)

/** Runs `event`'s hooks over `initial`, one at a time. afterModel's failures are ignored; never rejects. */
export const runChain = <S, E extends ModelEvent>(
  hooks: ModelHooks,
  event: E,
  spec: ChainSpec<S, E>,
  initial: S
): Promise<ChainEnd<S, E>> => {
  const row: EventRow = MODEL_EVENT_ROWS[event]
  const decode = DECODERS[event]
  const calls: HookRunner.Invocation<S, ModelHook, VerdictOf<E>> = {
    call: (state, hook) => hook.run(spec.input(state)),
    decode: (value, state) => decode(value, spec.facts(state)) as VerdictOf<E> | typeof HookRunner.BAD_RETURN,
    deadlineMs: (hook) => hook.timeoutMs,
    fibers: FIBERS
  }
  return Effect.runPromise(Effect.gen(function*() {
    let state = initial
    for (const hook of hooks[event]) {
      const answer = HookRunner.invoke(calls, state, hook)
      const outcome = HookRunner.isSettled(answer) ? answer : yield* answer
      if (!outcome.ok) {
        if (row.failure === "observe") continue
        return { _tag: "Failed", hookId: hook.id, kind: outcome.kind } as const
      }
      const next = spec.apply(state, outcome.verdict)
      if (next === STOP) return { _tag: "Stopped", verdict: outcome.verdict, hookId: hook.id } as const
      state = next
    }
    return { _tag: "Done", state } as const
  }))
}
