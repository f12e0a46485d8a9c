/**
 * The config's `policy` compiled onto core's `Policy.rules`: the fields a rule shares with core's
 * (RuleFields: id, match, decision, reason, principals) pass through; `when.args` becomes a
 * predicate (AND a code predicate from interlock.config.ts), whose path conditions place paths as
 * the call's server would (ServerPaths.ts). The default decision is "deny" when none is given.
 */
import { ConfigError, Policy, type PolicyRule } from "@interlock/core"
import { Effect, Layer } from "effect"
import { compileArgConditions } from "./ArgConditions.ts"
import type { GatewayConfig } from "../config/Config.ts"
import type { RulePredicate } from "../config/ConfigLoader.ts"
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
      : (callArgs, call, ctx) => (args(callArgs, call.serverId) ?? undecided()) && (code === undefined || code(callArgs, call, ctx))
    const { when: _conditions, ...fields } = rule
    rules.push({ ...fields, id: rule.id ?? `rules[${index}]`, ...(when === undefined ? {} : { when }) })
  }
  return { rules, default: config.policy?.default ?? "deny" }
}

/** The Policy Layer for a config (`baseDir` as in {@link policyRules}). */
export const policyLayer = (
  config: GatewayConfig,
  predicates?: ReadonlyMap<number, RulePredicate>,
  baseDir?: string
): Layer.Layer<Policy, ConfigError> => {
  const compiled = policyRules(config, predicates, baseDir)
  return compiled instanceof ConfigError ? Layer.effect(Policy, Effect.fail(compiled)) : Policy.rules(compiled)
}
