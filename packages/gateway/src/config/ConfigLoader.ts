/**
 * Loading a config file: `interlock.config.json` or `.jsonc` (comments allowed; validated by the GatewayConfig Schema)
 * or `interlock.config.ts` (its default export, from `defineConfig`, with hooks and rule predicates
 * as code). Errors are ConfigErrors that name the file and the path at fault.
 */
import {
  ConfigError,
  type HookContext,
  type HooksConfig,
  type JsonObject,
  JsonText,
  type ToolCall
} from "@interlock/core"
import { Effect, Exit, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { promisify } from "node:util"
import { GatewayConfig } from "./Config.ts"
import { fromIssue, ROOT } from "./IssueFormat.ts"
import { blankComments } from "./JsonComments.ts"
import { syntaxErrorWhere } from "./JsonSyntax.ts"

/** A rule predicate written as code (interlock.config.ts only). */
export type RulePredicate = (args: JsonObject, call: ToolCall, ctx: HookContext) => boolean

/** A loaded config: the validated data, the code parts, and where relative paths start. */
export interface LoadedConfig {
  readonly config: GatewayConfig
  /** Hooks written as code (interlock.config.ts), run after the built-in hooks. */
  readonly hooks: HooksConfig
  /** Rule predicates written as code, by rule index; they AND with the rule's `when.args`. */
  readonly predicates: ReadonlyMap<number, RulePredicate>
  /** The directory relative paths in the config are resolved against. */
  readonly baseDir: string
  /** The file it came from, if any. */
  readonly file: string | undefined
}

const decode = Schema.decodeUnknownExit(GatewayConfig, { onExcessProperty: "error", errors: "all" })

/** Validates raw config data. `hooks` and function-valued `when`s must have been taken out first. */
export const decodeConfig = (raw: unknown): Effect.Effect<GatewayConfig, ConfigError> => {
  const exit = decode(raw)
  if (Exit.isSuccess(exit)) return Effect.succeed(exit.value)
  const failure = exit.cause.reasons.find((reason) => reason._tag === "Fail")
  const error = failure?._tag === "Fail" ? failure.error : undefined
  return Effect.fail(
    Schema.isSchemaError(error)
      ? fromIssue(error.issue)
      : new ConfigError({ path: ROOT, detail: "could not be validated" })
  )
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Splits the code parts (hooks, function `when`s) from the data of a config object. */
export const splitCode = (
  raw: unknown
): { readonly data: unknown; readonly hooks: HooksConfig; readonly predicates: Map<number, RulePredicate> } => {
  const predicates = new Map<number, RulePredicate>()
  if (!isRecord(raw)) return { data: raw, hooks: {}, predicates }
  const { hooks, ...rest } = raw
  let data: Record<string, unknown> = rest
  const policy = rest.policy
  if (isRecord(policy) && Array.isArray(policy.rules)) {
    const rules = policy.rules.map((rule: unknown, index: number) => {
      if (!isRecord(rule) || typeof rule.when !== "function") return rule
      predicates.set(index, rule.when as RulePredicate)
      const { when: _when, ...others } = rule
      return others
    })
    data = { ...rest, policy: { ...policy, rules } }
  }
  return { data, hooks: (hooks ?? {}) as HooksConfig, predicates }
}

/** Builds a LoadedConfig from a config object (the default export of interlock.config.ts, or parsed JSON). */
export const fromObject = (raw: unknown, baseDir: string, file?: string): Effect.Effect<LoadedConfig, ConfigError> => {
  const { data, hooks, predicates } = splitCode(raw)
  if (!isRecord(hooks)) {
    return Effect.fail(new ConfigError({ path: "hooks", detail: "must be an object of hook lists" }))
  }
  return Effect.flatMap(decodeConfig(data), (config) => {
    const misplaced = conditionOnOperations(config, predicates)
    return misplaced === undefined
      ? Effect.succeed({ config, hooks, predicates, baseDir, file })
      : Effect.fail(misplaced)
  })
}

/**
 * A rule on resources or prompts with a condition (`when`, conditions on tool calls' arguments), as the error naming
 * it.
 */
const conditionOnOperations = (
  config: GatewayConfig,
  predicates: ReadonlyMap<number, RulePredicate>
): ConfigError | undefined => {
  const rules = config.policy?.rules ?? []
  const index = rules.findIndex((rule, at) =>
    rule.on !== undefined && rule.on !== "tools" && (rule.when !== undefined || predicates.has(at))
  )
  if (index < 0) return undefined
  return new ConfigError({
    path: `policy.rules[${index}].when`,
    detail: `a rule on ${rules[index].on} takes no when (its conditions are on tool calls' arguments)`
  })
}

// fs's callback, not node:fs/promises, whose module loads readline's and the REPL's with it (claude-hook reads a config
// per event).
const readFile = promisify(fs.readFile)

const readJson = (file: string) =>
  Effect.tryPromise({
    try: () => readFile(file, "utf8"),
    catch: () => new ConfigError({ path: file, detail: "could not be read" })
  }).pipe(
    Effect.flatMap((text) => {
      const data = blankComments(text)
      if (data === undefined) {
        return Effect.fail(new ConfigError({ path: file, detail: "has a /* comment that is never closed" }))
      }
      return Effect.try({
        try: () => JsonText.parse(data),
        // The parser's message may quote the file's content (and a literal secret): say where only.
        catch: (error) => new ConfigError({ path: file, detail: `is not valid JSON${syntaxErrorWhere(error, data)}` })
      })
    })
  )

// Node caches a module by its URL: a reload imports the file under a URL of its own (a module it
// imports in turn stays cached, and each import stays in memory: ES modules are never unloaded).
let imports = 0

const importModule = (file: string, fresh: boolean) =>
  Effect.tryPromise({
    try: () =>
      import(`${pathToFileURL(file).href}${fresh ? `?reload=${++imports}` : ""}`) as Promise<{ default?: unknown }>,
    catch: () => new ConfigError({ path: file, detail: "could not be loaded as a module" })
  }).pipe(
    Effect.flatMap((module) =>
      module.default === undefined
        ? Effect.fail(
          new ConfigError({ path: file, detail: "has no default export (export default defineConfig({ ... }))" })
        )
        : Effect.succeed(module.default)
    )
  )

/** Options of {@link loadConfig}. */
export interface LoadOptions {
  /** Import a code config anew rather than from Node's module cache (a reload). */
  readonly fresh?: boolean
}

/**
 * Loads a config file (.json or .jsonc, both with `//` and `/* *\/` comments allowed, or .ts/.mts/.js/.mjs with a
 * default export).
 */
export const loadConfig = (file: string, options: LoadOptions = {}): Effect.Effect<LoadedConfig, ConfigError> => {
  const absolute = path.resolve(file)
  const baseDir = path.dirname(absolute)
  const raw = absolute.endsWith(".json") || absolute.endsWith(".jsonc")
    ? readJson(absolute)
    : importModule(absolute, options.fresh === true)
  return raw.pipe(
    Effect.flatMap((value) => fromObject(value, baseDir, absolute)),
    // Every error names the file the same way (shownPath), then the path at fault inside it.
    Effect.mapError((error) =>
      new ConfigError({
        path: error.path === absolute || error.path === ROOT
          ? shownPath(absolute)
          : `${shownPath(absolute)}: ${error.path}`,
        detail: error.detail
      })
    )
  )
}

/** A config file as messages show it: relative to the working directory when inside it, else absolute. */
export const shownPath = (file: string): string => {
  const relative = path.relative(process.cwd(), file)
  return relative === "" || relative.startsWith("..") || path.isAbsolute(relative) ? file : relative
}

export { CONFIG_NAMES } from "./ConfigNames.ts"
