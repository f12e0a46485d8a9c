/**
 * Hooks: compiling and validating a hooks config, and the `Hooks` service that holds the
 * compiled, resolved hooks of one client.
 */
import { Context, Effect, Layer, Result, Scope } from "effect"
import { describe } from "./internal/Describe.ts"
import { ConfigError } from "./Errors.ts"
import type { HooksConfig, HooksRequirements } from "./HookConfig.ts"
import { HOOK_EVENT_ROWS, HOOK_EVENTS, type HookEvent, isHookEvent } from "./HookEvent.ts"
import { levelRank, type Matcher, parseMatcher } from "./Matcher.ts"
import { isDeadline, toMillis } from "./Millis.ts"
import type { HookKind } from "./VerdictDecoder.ts"

/** One compiled hook. `run` is a function, or a service tag until the hook is resolved. */
export interface CompiledHook {
  readonly id: string
  readonly event: HookEvent
  /** Position in the config, for error messages. */
  readonly index: number
  readonly matcher: Matcher
  readonly run: Function | Context.Key<any, any>
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

const OPTION_KEYS = new Set(["match", "run", "id", "timeout", "onError", "kind", "required"])
const KINDS = new Set(["guard", "transform", "observe"])

/** Whether a value is already compiled. */
const isCompiled = (value: unknown): value is CompiledHooks<unknown> =>
  typeof value === "object" && value !== null && CompiledTypeId in value

type Entry = { readonly match: unknown; readonly run: unknown; readonly options: Record<string, unknown> }

const readEntry = (raw: unknown): Entry | string => {
  if (Array.isArray(raw)) {
    if (raw.length < 2 || raw.length > 3) return `a tuple entry must be [match, run] or [match, run, options], got ${raw.length} items`
    const options = raw[2] ?? {}
    if (typeof options !== "object" || options === null || Array.isArray(options)) return `options must be an object, got ${describe(options)}`
    for (const key of Object.keys(options)) {
      if (key === "match" || key === "run" || !OPTION_KEYS.has(key)) return `unknown option "${key}"`
    }
    return { match: raw[0], run: raw[1], options: options as Record<string, unknown> }
  }
  if (typeof raw !== "object" || raw === null) return `an entry must be { match, run, ...options } or a tuple, got ${describe(raw)}`
  for (const key of Object.keys(raw)) if (!OPTION_KEYS.has(key)) return `unknown option "${key}"`
  const record = raw as Record<string, unknown>
  return { match: record.match, run: record.run, options: record }
}

const timeoutMillis = (value: unknown): number | string => {
  const millis = toMillis(value)
  return isDeadline(millis) ? millis : "timeout must be a positive, finite duration (ms or a Duration)"
}

/** The events that accept onError, as the config error names them. */
const ON_ERROR_EVENTS = HOOK_EVENTS.filter((event) => HOOK_EVENT_ROWS[event].failure === "onError").join(" and ")

const compileEntry = (event: HookEvent, index: number, raw: unknown, ids: Set<string>): CompiledHook | ConfigError => {
  const rawId = typeof raw === "object" && raw !== null && !Array.isArray(raw) ? (raw as { id?: unknown }).id : Array.isArray(raw) ? (raw[2] as { id?: unknown } | undefined)?.id : undefined
  const where = `${event}[${index}]${typeof rawId === "string" ? ` (id "${rawId}")` : ""}`
  const error = (detail: string) => new ConfigError({ path: where, detail })
  const entry = readEntry(raw)
  if (typeof entry === "string") return error(entry)
  const { options } = entry
  const matcher = parseMatcher(entry.match)
  if (Result.isFailure(matcher)) return error(`match: ${matcher.failure}`)
  const run = entry.run
  // A service class is itself a function, so the tag check comes first.
  if (!Context.isKey(run)) {
    if (typeof run !== "function") return error(`run must be a function or a service tag, got ${describe(run)}`)
    const arity = HOOK_EVENT_ROWS[event].args.length
    if (run.length > arity) return error(`run takes ${run.length} arguments, but ${event} passes ${arity}`)
  }
  if (options.id !== undefined && (typeof options.id !== "string" || options.id.length === 0)) return error("id must be a non-empty string")
  const id = (options.id as string | undefined) ?? `${event}[${index}]`
  if (ids.has(id)) return error(`duplicate hook id "${id}"`)
  let timeoutMs: number | undefined
  if (options.timeout !== undefined) {
    const millis = timeoutMillis(options.timeout)
    if (typeof millis === "string") return error(millis)
    timeoutMs = millis
  }
  if (options.onError !== undefined) {
    if (HOOK_EVENT_ROWS[event].failure !== "onError") return error(`onError is not accepted on ${event} (only ${ON_ERROR_EVENTS})`)
    if (options.onError !== "fail" && options.onError !== "ignore") return error(`onError must be "fail" or "ignore"`)
  }
  if (options.kind !== undefined && !KINDS.has(options.kind as string)) return error(`kind must be "guard", "transform" or "observe"`)
  if (options.required !== undefined && typeof options.required !== "boolean") return error("required must be a boolean")
  ids.add(id)
  return {
    id,
    event,
    index,
    matcher: matcher.success,
    run: run as Function | Context.Key<any, any>,
    timeoutMs,
    onError: (options.onError as "fail" | "ignore" | undefined) ?? "fail",
    kind: options.kind as HookKind | undefined,
    required: options.required === true
  }
}

/** Onion order: by level (global, server, tool), declaration order within a level; reversed for inside-out events. */
const runOrder = (event: HookEvent, hooks: ReadonlyArray<CompiledHook>): ReadonlyArray<CompiledHook> => {
  const sorted = [...hooks].sort((a, b) => levelRank[a.matcher.level] - levelRank[b.matcher.level] || a.index - b.index)
  return HOOK_EVENT_ROWS[event].order === "inside-out" ? sorted.reverse() : sorted
}

const compileConfig = (config: unknown): CompiledHooks<unknown> | ConfigError => {
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    return new ConfigError({ path: "hooks", detail: `the hooks config must be an object, got ${describe(config)}` })
  }
  const ids = new Set<string>()
  const byEvent = Object.fromEntries(HOOK_EVENTS.map((event) => [event, [] as Array<CompiledHook>])) as Record<HookEvent, Array<CompiledHook>>
  for (const [event, entries] of Object.entries(config)) {
    if (entries === undefined) continue
    if (!isHookEvent(event)) {
      return new ConfigError({ path: event, detail: `unknown event; the events are ${HOOK_EVENTS.join(", ")}` })
    }
    if (!Array.isArray(entries)) return new ConfigError({ path: event, detail: `must be an array of hook entries, got ${describe(entries)}` })
    for (let index = 0; index < entries.length; index++) {
      const hook = compileEntry(event, index, entries[index], ids)
      if (hook instanceof ConfigError) return hook
      byEvent[event].push(hook)
    }
  }
  for (const event of HOOK_EVENTS) byEvent[event] = runOrder(event, byEvent[event]) as Array<CompiledHook>
  return { [CompiledTypeId]: (_: never) => _, byEvent }
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
    return compiled instanceof ConfigError ? Effect.fail(compiled) : Effect.succeed(compiled as CompiledHooks<HooksRequirements<C>>)
  })

/** Whether no hook is configured for any event. */
export const isEmpty = (hooks: CompiledHooks<unknown>): boolean => HOOK_EVENTS.every((event) => hooks.byEvent[event].length === 0)

/** A hook whose `run` is a function, ready for the runner. */
export interface ResolvedHook extends CompiledHook {
  readonly run: Function
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
    byEvent: Object.fromEntries(HOOK_EVENTS.map((event) => [event, []])) as unknown as HooksShape["byEvent"],
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
        Context.isKey(hook.run) ? { ...hook, run: Context.getUnsafe(context, hook.run) as Function } : hook as ResolvedHook
      )
      for (const hook of byEvent[event]) {
        if (typeof hook.run !== "function") {
          return yield* new ConfigError({ path: `${event}[${hook.index}] (id "${hook.id}")`, detail: "the service named by run is not a function" })
        }
      }
    }
    return { byEvent, context }
  })
