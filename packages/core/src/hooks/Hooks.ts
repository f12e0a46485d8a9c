/**
 * Hooks: compiling and validating a hooks config, and the `Hooks` service that holds the
 * compiled, resolved hooks of one client.
 */
import { Context, Effect, Layer, Result, Schema, Scope } from "effect"
import { firstProblem, type Problem, valueAt } from "../internal/ConfigIssue.ts"
import { describe } from "../internal/Describe.ts"
import { ConfigError } from "../model/Errors.ts"
import { toMillis } from "../model/Millis.ts"
import { levelRank, type Matcher, matcherProblem } from "../policy/Matcher.ts"
import { type AnyHookFunction, CompilableHooks, type HooksConfig } from "./HookConfig.ts"
import { HOOK_EVENT_ROWS, HOOK_EVENTS, type HookEvent, isHookEvent } from "./HookEvent.ts"
import type { HookKind } from "./VerdictDecoder.ts"

type EntryRun<E> = E extends readonly [any, infer F, ...Array<any>] ? F
  : E extends { readonly run: infer F } ? F
  : never

// A config typed only as HooksConfig (not a literal) says nothing about its requirements: `any`
// there is read as none, and a hook whose service is missing fails closed at run time.
type Known<R> = 0 extends 1 & R ? never : R

type RunRequirements<F> = F extends Context.Key<infer I, any> ? Known<I>
  : F extends (...args: Array<any>) => infer Ret ? Ret extends Effect.Effect<any, any, infer R> ? Known<R> : never
  : never

/** The services that a config's Effect hooks and service-tag hooks require (or compiled hooks', `R`). */
export type HooksRequirements<C> = C extends CompiledHooks<infer R> ? R : {
  [K in keyof C]-?: C[K] extends ReadonlyArray<infer E> | undefined ? RunRequirements<EntryRun<E>> : never
}[keyof C]

/** One compiled hook. `run` is a function, or a service tag until the hook is resolved. */
export interface CompiledHook {
  readonly id: string
  readonly event: HookEvent
  /** Position in the config, for error messages. */
  readonly index: number
  readonly matcher: Matcher
  readonly run: AnyHookFunction | Context.Key<any, any>
  /** The hook's own deadline in ms; undefined means the client's hookTimeout. */
  readonly timeoutMs: number | undefined
  readonly onError: "fail" | "ignore"
  readonly kind: HookKind | undefined
  readonly required: boolean
}

const CompiledTypeId = Symbol.for("@interlock/core/CompiledHooks")

/** Compiled hooks: per event, the hooks in run order. `R` is what their Effects require. */
export interface CompiledHooks<out R = never> {
  readonly [CompiledTypeId]: (_: never) => R
  readonly byEvent: { readonly [E in HookEvent]: ReadonlyArray<CompiledHook> }
}

/** Whether a value is already compiled. */
const isCompiled = (value: unknown): value is CompiledHooks<unknown> =>
  typeof value === "object" && value !== null && CompiledTypeId in value

/** The events that accept onError, as the config error names them. */
const ON_ERROR_EVENTS = HOOK_EVENTS.filter((event) => HOOK_EVENT_ROWS[event].failure === "onError").join(" and ")

const decodeConfig = Schema.decodeUnknownResult(CompilableHooks, { onExcessProperty: "error" })

type DecodedEntry = NonNullable<typeof CompilableHooks.Type[HookEvent]>[number]

// Array.isArray does not narrow a readonly tuple.
const isTuple = (entry: DecodedEntry): entry is Extract<DecodedEntry, ReadonlyArray<unknown>> => Array.isArray(entry)

// What each option must be, said the way a ConfigError says it.
const OPTION_MESSAGES: Readonly<Record<string, string>> = {
  id: "id must be a non-empty string",
  timeout: "timeout must be a positive, finite duration (ms or a Duration)",
  onError: `onError must be "fail" or "ignore"`,
  kind: `kind must be "guard", "transform" or "observe"`,
  required: "required must be a boolean"
}

// `unknown` says whether the problem is the field itself being a key the entry does not know.
const fieldDetail = (field: PropertyKey, problem: Problem, value: unknown, unknown: boolean): string => {
  if (unknown) return `unknown option "${String(field)}"`
  if (field === "match") return `match: ${matcherProblem(problem.message, value)}`
  if (field === "run") return `run must be a function or a service tag, got ${describe(value)}`
  return OPTION_MESSAGES[String(field)] ?? "is invalid"
}

/** What is wrong with one entry, from its first Schema problem (path relative to the entry). */
const entryDetail = (problem: Problem, raw: unknown): string => {
  const { issue, path } = problem
  const [key, option] = path
  const unknown = (depth: number) => issue._tag === "UnexpectedKey" && path.length === depth
  if (!Array.isArray(raw)) {
    return key === undefined
      ? `an entry must be { match, run, ...options } or a tuple, got ${describe(raw)}`
      : fieldDetail(key, problem, valueAt(raw, [key]), unknown(1))
  }
  if (raw.length < 2 || raw.length > 3) {
    return `a tuple entry must be [match, run] or [match, run, options], got ${raw.length} items`
  }
  if (key === 0) return fieldDetail("match", problem, raw[0], false)
  if (key === 1) return fieldDetail("run", problem, raw[1], false)
  return option === undefined
    ? `options must be an object, got ${describe(raw[2])}`
    : fieldDetail(option, problem, valueAt(raw, [2, option]), unknown(2))
}

/** Where an entry is, for errors: `<event>[<index>]`, with its id when it has a string one. */
const placeOf = (event: string, index: number, raw: unknown): string => {
  const id = valueAt(Array.isArray(raw) ? raw[2] : raw, ["id"])
  return `${event}[${index}]${typeof id === "string" ? ` (id "${id}")` : ""}`
}

/** A hooks config's first Schema problem as the ConfigError that names the event and the entry at fault. */
const configError = (problem: Problem, config: unknown): ConfigError => {
  const [event, index, ...rest] = problem.path
  if (event === undefined) {
    return new ConfigError({ path: "hooks", detail: `the hooks config must be an object, got ${describe(config)}` })
  }
  const name = String(event)
  if (problem.issue._tag === "UnexpectedKey" && index === undefined) {
    return new ConfigError({ path: name, detail: `unknown event; the events are ${HOOK_EVENTS.join(", ")}` })
  }
  const entries = valueAt(config, [event])
  if (typeof index !== "number") {
    return new ConfigError({ path: name, detail: `must be an array of hook entries, got ${describe(entries)}` })
  }
  const raw = valueAt(entries, [index])
  return new ConfigError({ path: placeOf(name, index, raw), detail: entryDetail({ ...problem, path: rest }, raw) })
}

/** The event-dependent rules a Schema cannot say: the run's arity, unique ids, where onError is accepted. */
const compileEntry = (
  event: HookEvent,
  index: number,
  entry: DecodedEntry,
  raw: unknown,
  ids: Set<string>
): CompiledHook | ConfigError => {
  const error = (detail: string) => new ConfigError({ path: placeOf(event, index, raw), detail })
  const { match, options, run } = isTuple(entry)
    ? { match: entry[0], run: entry[1], options: entry[2] ?? {} }
    : { match: entry.match, run: entry.run, options: entry }
  // A service class is itself a function, so the tag check comes first.
  if (!Context.isKey(run) && run.length > HOOK_EVENT_ROWS[event].args.length) {
    return error(`run takes ${run.length} arguments, but ${event} passes ${HOOK_EVENT_ROWS[event].args.length}`)
  }
  const id = options.id ?? `${event}[${index}]`
  if (ids.has(id)) return error(`duplicate hook id "${id}"`)
  if (options.onError !== undefined && HOOK_EVENT_ROWS[event].failure !== "onError") {
    return error(`onError is not accepted on ${event} (only ${ON_ERROR_EVENTS})`)
  }
  ids.add(id)
  return {
    id,
    event,
    index,
    matcher: match,
    run,
    timeoutMs: options.timeout === undefined ? undefined : toMillis(options.timeout),
    onError: options.onError ?? "fail",
    kind: options.kind,
    required: options.required === true
  }
}

/** Onion order: by level (global, server, tool), declaration order within a level; reversed for inside-out events. */
const runOrder = (event: HookEvent, hooks: ReadonlyArray<CompiledHook>): ReadonlyArray<CompiledHook> => {
  const sorted = [...hooks].sort((a, b) => levelRank[a.matcher.level] - levelRank[b.matcher.level] || a.index - b.index)
  return HOOK_EVENT_ROWS[event].order === "inside-out" ? sorted.reverse() : sorted
}

const compileConfig = (config: unknown): CompiledHooks<unknown> | ConfigError => {
  const decoded = decodeConfig(config)
  if (Result.isFailure(decoded)) return configError(firstProblem(decoded.failure.issue), config)
  const ids = new Set<string>()
  const byEvent = emptyByEvent<CompiledHook>()
  // In the config's own order, so that a duplicate id is reported where it is repeated.
  for (const event of Object.keys(config as object)) {
    if (!isHookEvent(event)) continue
    const entries = decoded.success[event]
    if (entries === undefined) continue
    const hooks: Array<CompiledHook> = []
    for (let index = 0; index < entries.length; index++) {
      const hook = compileEntry(event, index, entries[index], valueAt(config, [event, index]), ids)
      if (hook instanceof ConfigError) return hook
      hooks.push(hook)
    }
    byEvent[event] = runOrder(event, hooks)
  }
  return { [CompiledTypeId]: (_: never) => _, byEvent }
}

/** Per event, no hooks. */
const emptyByEvent = <Hook>(): Record<HookEvent, ReadonlyArray<Hook>> => {
  const byEvent: Partial<Record<HookEvent, ReadonlyArray<Hook>>> = {}
  for (const event of HOOK_EVENTS) byEvent[event] = []
  return byEvent as Record<HookEvent, ReadonlyArray<Hook>>
}

/**
 * Compiles and validates a hooks config. Fails with a ConfigError that names the event and the
 * entry (index and id). A compiled value passes through unchanged. Never throws.
 */
export const compile = <const C extends HooksConfig>(
  config: C | CompiledHooks<HooksRequirements<C>>
): Effect.Effect<CompiledHooks<HooksRequirements<C>>, ConfigError> =>
  Effect.suspend(() => {
    if (isCompiled(config)) return Effect.succeed(config as CompiledHooks<HooksRequirements<C>>)
    let compiled: CompiledHooks<unknown> | ConfigError
    try {
      compiled = compileConfig(config)
    } catch {
      compiled = new ConfigError({ path: "hooks", detail: "the hooks config could not be read" })
    }
    return compiled instanceof ConfigError
      ? Effect.fail(compiled)
      : Effect.succeed(compiled as CompiledHooks<HooksRequirements<C>>)
  })

/** Whether no hook is configured for any event. */
export const isEmpty = (hooks: CompiledHooks<unknown>): boolean =>
  HOOK_EVENTS.every((event) => hooks.byEvent[event].length === 0)

/** A hook whose `run` is a function, ready for the runner. */
export interface ResolvedHook extends CompiledHook {
  readonly run: AnyHookFunction
}

/** The resolved hooks of a client, plus the services their Effects need. */
export interface HooksShape {
  readonly byEvent: { readonly [E in HookEvent]: ReadonlyArray<ResolvedHook> }
  /** Services captured when the Layer was built; provided to Effect hooks. */
  readonly context: Context.Context<never>
}

/** The compiled hooks of one client, as a service: swap them in tests by providing another Layer. */
export class Hooks extends Context.Service<Hooks, HooksShape>()("@interlock/core/Hooks") {
  /** Compiles and validates a config (see {@link compile}). */
  static readonly compile = compile
  /** Whether compiled hooks are empty (see {@link isEmpty}). */
  static readonly isEmpty = isEmpty

  /** No hooks at all. */
  static readonly empty: Layer.Layer<Hooks> = Layer.succeed(Hooks, {
    byEvent: emptyByEvent<ResolvedHook>(),
    context: Context.empty()
  })

  /** Compiles a config (or takes compiled hooks) and resolves service-tag hooks from the context. */
  static layer<const C extends HooksConfig>(
    config: C | CompiledHooks<HooksRequirements<C>>
  ): Layer.Layer<Hooks, ConfigError, HooksRequirements<C>> {
    return Layer.effect(Hooks, resolve(config))
  }
}

/** Compiles, then resolves service-tag hooks against the current context. */
export const resolve = <const C extends HooksConfig>(
  config: C | CompiledHooks<HooksRequirements<C>>
): Effect.Effect<HooksShape, ConfigError, HooksRequirements<C>> =>
  Effect.gen(function*() {
    const compiled = yield* compile(config)
    const context = Context.omit(Scope.Scope)(yield* Effect.context<HooksRequirements<C>>()) as Context.Context<never>
    const byEvent = {} as Record<HookEvent, ReadonlyArray<ResolvedHook>>
    for (const event of HOOK_EVENTS) {
      byEvent[event] = compiled.byEvent[event].map((hook): ResolvedHook =>
        Context.isKey(hook.run)
          ? { ...hook, run: Context.getUnsafe(context, hook.run) as AnyHookFunction }
          : hook as ResolvedHook
      )
      for (const hook of byEvent[event]) {
        if (typeof hook.run !== "function") {
          return yield* new ConfigError({
            path: `${event}[${hook.index}] (id "${hook.id}")`,
            detail: "the service named by run is not a function"
          })
        }
      }
    }
    return { byEvent, context }
  })
