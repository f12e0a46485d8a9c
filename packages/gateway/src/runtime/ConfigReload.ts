/**
 * One config reload: the file is loaded and validated whole (decoded, planned, its generation built) and only then
 * put in force, in one swap (ConfigGeneration.ts). A config that fails anywhere, or changes a RESTART_ONLY key,
 * leaves the running one in force, so the config in force is always the one its hash names; the outcome is one log
 * line naming the path at fault, never a value.
 */
import { Canonical, ConfigError } from "@interlock/core"
import { Effect } from "effect"
import type { GatewayConfig } from "../config/Config.ts"
import { versionOf } from "../config/ConfigHash.ts"
import { loadConfig } from "../config/ConfigLoader.ts"
import type { Plan } from "../config/Plan.ts"
import { makePlan, type PlanOptions } from "./PlanBuilder.ts"

/** The top-level config keys a reload cannot change (the gateway must be restarted for them). */
export const RESTART_ONLY: ReadonlyArray<keyof GatewayConfig> = [
  "servers",
  "listen",
  "audit",
  "state",
  "telemetry",
  "namespace",
  "credentials"
]

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const same = (a: unknown, b: unknown): boolean =>
  Canonical.canonicalJson(a ?? null) === Canonical.canonicalJson(b ?? null)

// The deepest key path at which two values differ (keys only: a value may be a literal secret).
const differsAt = (a: unknown, b: unknown, at: string): string | undefined => {
  if (same(a, b)) return undefined
  if (!isRecord(a) || !isRecord(b)) return at
  for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    const found = differsAt(a[key], b[key], `${at}.${key}`)
    if (found !== undefined) return found
  }
  return at
}

/**
 * The first restart-only key path (for example `listen.http`) whose value differs between two configs, or undefined.
 */
export const restartOnlyChange = (
  running: Readonly<Record<string, unknown>>,
  next: Readonly<Record<string, unknown>>
): string | undefined => {
  for (const key of RESTART_ONLY) {
    const found = differsAt(running[key], next[key], key)
    if (found !== undefined) return found
  }
  return undefined
}

/** How one reload ended. `version` is the config in force after it. */
export type ReloadOutcome =
  | { readonly _tag: "Applied"; readonly version: string; readonly previous: string; readonly generation: number }
  | { readonly _tag: "Unchanged"; readonly version: string }
  | { readonly _tag: "Refused"; readonly version: string; readonly path: string }
  | { readonly _tag: "Failed"; readonly version: string; readonly error: ConfigError }

/** What a reload needs of the gateway: the plan in force, and the swap. */
export interface Reloadable {
  readonly plan: Plan
  readonly apply: (next: Plan) => Effect.Effect<{ readonly number: number }, ConfigError>
}

/** Where a reload reads its config: the file, and the plan options the gateway started with (`--http`). */
export interface ReloadSource {
  readonly file: string
  readonly options?: PlanOptions
}

const builtinId = (entry: unknown): string | undefined =>
  isRecord(entry) && typeof entry.id === "string" && /^rateLimits\[\d+\]$/.test(entry.id) ? entry.id : undefined

/**
 * `next` with the running plan's hook (and so its buckets) for each rate limit that is the same in
 * both configs at the same index, so a reload never hands anyone a fresh burst (a changed one starts full); the
 * built-in hooks come first, so the first entry of an id is the built-in one.
 */
export const keepRateLimits = (running: Plan, next: Plan): Plan => {
  const before = running.loaded.config.rateLimits ?? []
  const after = next.loaded.config.rateLimits ?? []
  const kept = new Map<string, NonNullable<Plan["hooks"]["preToolCall"]>[number]>()
  for (const entry of running.hooks.preToolCall ?? []) {
    const id = builtinId(entry)
    if (id !== undefined && !kept.has(id)) kept.set(id, entry)
  }
  const preToolCall = (next.hooks.preToolCall ?? []).map((entry) => {
    const id = builtinId(entry)
    const index = id === undefined ? -1 : Number(id.slice("rateLimits[".length, -1))
    const previous = id === undefined ? undefined : kept.get(id)
    if (previous === undefined || index >= after.length || !same(before[index], after[index])) return entry
    kept.delete(id as string)
    return previous
  })
  return preToolCall.length === 0 ? next : { ...next, hooks: { ...next.hooks, preToolCall } }
}

// Code parts (hooks, `when` functions) have no canonical text: the hash cannot tell their edits apart.
const hasCode = (plan: Plan): boolean =>
  plan.loaded.predicates.size > 0 || Object.values(plan.loaded.hooks).some((entries) => entries !== undefined)

/** Reloads `source` into `gateway`: validated whole first, then applied in one swap, or not at all. Never fails. */
export const reload = (gateway: Reloadable, source: ReloadSource): Effect.Effect<ReloadOutcome> =>
  Effect.gen(function*() {
    const running = gateway.plan
    const version = versionOf(running.configHash).version
    const loaded = yield* loadConfig(source.file, { fresh: true })
    const next = makePlan(loaded, source.options)
    if (next instanceof ConfigError) return yield* next
    const path = restartOnlyChange(running.loaded.config, next.loaded.config)
    if (path !== undefined) return { _tag: "Refused", version, path } as const
    if (next.configHash === running.configHash && !hasCode(next)) return { _tag: "Unchanged", version } as const
    const generation = yield* gateway.apply(keepRateLimits(running, next))
    return {
      _tag: "Applied",
      version: versionOf(next.configHash).version,
      previous: version,
      generation: generation.number
    } as const
  }).pipe(
    Effect.catch((error: ConfigError) =>
      Effect.succeed({ _tag: "Failed", version: versionOf(gateway.plan.configHash).version, error } as const)
    )
  )

// A multi-problem ConfigError lists one problem a line: the log keeps it to one line.
const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, "; ")

/** The log line of an outcome (the word after "config " is the outcome, for anyone grepping the log). */
export const outcomeLine = (outcome: ReloadOutcome, file: string): string => {
  switch (outcome._tag) {
    case "Applied":
      return `config reloaded from ${file}: version ${outcome.version} is in force (was ${outcome.previous}, ` +
        `generation ${outcome.generation})`
    case "Unchanged":
      return `config unchanged in ${file}: version ${outcome.version} stays in force`
    case "Refused":
      return `config reload refused: ${outcome.path} cannot change without a restart; version ${outcome.version} ` +
        `stays in force`
    case "Failed":
      return `config reload failed: ${oneLine(outcome.error.message)}; version ${outcome.version} stays in force`
  }
}
