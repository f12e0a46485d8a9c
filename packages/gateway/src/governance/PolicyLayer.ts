/**
 * The config's `policy` compiled onto core's `Policy.rules`: a rule's core fields (RuleFields) pass through, and
 * `when.args` becomes a predicate (AND a code predicate from interlock.config.ts) that places paths as the call's
 * server would (ServerPaths.ts); the default is "deny". Or `policy.cedar`: a Cedar file, read once per plan (a
 * reload re-reads it), through @interlock/cedar, loaded only then.
 */
import { ConfigError, Policy, type PolicyRule } from "@interlock/core"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { promisify } from "node:util"
import type { GatewayConfig } from "../config/Config.ts"
import type { RulePredicate } from "../config/ConfigLoader.ts"
import type { Plan } from "../config/Plan.ts"
import { compileArgConditions } from "./ArgConditions.ts"
import { serverPaths } from "./ServerPaths.ts"

// Core's contract for a rule's `when`: one that throws makes that rule deny ("the condition of rule
// ID failed"). An undecided path condition must deny whatever the rule's decision, so it throws.
const undecided = (): never => {
  throw new Error("undecided path condition")
}

/**
 * Core policy rules from the config, or a ConfigError naming the rule at fault. `baseDir` is the
 * directory the config's relative paths are resolved against (servers' cwd and paths).
 */
export const policyRules = (
  config: GatewayConfig,
  predicates: ReadonlyMap<number, RulePredicate> = new Map(),
  baseDir: string = process.cwd()
): { readonly rules: ReadonlyArray<PolicyRule>; readonly default: "allow" | "deny" | "ask" } | ConfigError => {
  const paths = serverPaths(config, baseDir)
  if (paths instanceof ConfigError) return paths
  const rules: Array<PolicyRule> = []
  const configured = config.policy?.rules ?? []
  for (let index = 0; index < configured.length; index++) {
    const rule = configured[index]
    const path = `policy.rules[${index}]`
    const args = rule.when === undefined ? undefined : compileArgConditions(rule.when.args, `${path}.when.args`, paths)
    if (args instanceof ConfigError) return args
    const code = predicates.get(index)
    const when: PolicyRule["when"] = args === undefined
      ? code
      : (callArgs, call, ctx) =>
        (args(callArgs, call.serverId) ?? undecided()) && (code === undefined || code(callArgs, call, ctx))
    const { when: _conditions, ...fields } = rule
    rules.push({ ...fields, id: rule.id ?? `rules[${index}]`, ...(when === undefined ? {} : { when }) })
  }
  return { rules, default: config.policy?.default ?? "deny" }
}

/**
 * The Cedar policy file a config names (absolute, against `baseDir`), undefined without one, or a
 * ConfigError when rules or a default decision are given beside it.
 */
export const cedarPolicyFile = (
  config: GatewayConfig,
  baseDir: string = process.cwd()
): string | undefined | ConfigError => {
  const policy = config.policy
  if (policy?.cedar === undefined) return undefined
  if (policy.rules !== undefined || policy.default !== undefined) {
    return new ConfigError({
      path: "policy.cedar",
      detail: "a Cedar policy cannot be given together with policy.rules or policy.default"
    })
  }
  return path.resolve(baseDir, policy.cedar)
}

// fs's callback, not node:fs/promises, whose module loads readline's and the REPL's with it on every hook event.
const readFile = promisify(fs.readFile)

/** Reads a Cedar policy file; the error names the file as the config wrote it. */
export const readCedarFile = (file: string): Effect.Effect<string, ConfigError> =>
  Effect.tryPromise({
    try: () => readFile(file, "utf8"),
    catch: () => new ConfigError({ path: "policy.cedar", detail: `${file} could not be read` })
  })

/** The Policy Layer of a Cedar policy file; a file that does not parse names its file:line:column. */
export const cedarPolicyLayer = (file: string, text?: string): Layer.Layer<Policy, ConfigError> =>
  Layer.unwrap(Effect.gen(function*() {
    const policies = text ?? (yield* readCedarFile(file))
    const cedar = yield* Effect.tryPromise({
      try: () => import("@interlock/cedar"),
      catch: () => new ConfigError({ path: "policy.cedar", detail: "@interlock/cedar could not be loaded" })
    })
    const built = Effect.provide(Effect.service(Policy), cedar.Policy.cedar({ policies, source: file }))
    return Layer.effect(
      Policy,
      Effect.mapError(built, (error) => new ConfigError({ path: "policy.cedar", detail: error.message }))
    )
  }))

/** The Policy Layer for a config (`baseDir` as in {@link policyRules}; a Cedar file is found against it too). */
export const policyLayer = (
  config: GatewayConfig,
  predicates?: ReadonlyMap<number, RulePredicate>,
  baseDir?: string
): Layer.Layer<Policy, ConfigError> => {
  const cedarFile = cedarPolicyFile(config, baseDir)
  if (cedarFile instanceof ConfigError) return Layer.effect(Policy, Effect.fail(cedarFile))
  if (cedarFile !== undefined) return cedarPolicyLayer(cedarFile)
  const compiled = policyRules(config, predicates, baseDir)
  return compiled instanceof ConfigError ? Layer.effect(Policy, Effect.fail(compiled)) : Policy.rules(compiled)
}

/**
 * The Policy Layer of a plan: its Cedar policy as the plan read it (the text its hash covers), or
 * its rules, whose path conditions place relative paths against `pathsDir`.
 */
export const planPolicyLayer = (plan: Plan, pathsDir: string): Layer.Layer<Policy, ConfigError> =>
  plan.cedar !== undefined
    ? cedarPolicyLayer(plan.cedar.file, plan.cedar.text)
    : policyLayer(plan.loaded.config, plan.loaded.predicates, pathsDir)
