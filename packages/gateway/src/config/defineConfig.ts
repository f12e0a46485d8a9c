/** `defineConfig`: the typed entry point of interlock.config.ts (data as in the JSON form, plus code). */
import type { HooksConfig } from "@interlock/core"
import type { GatewayConfig, RuleConfig } from "./Config.ts"
import type { RulePredicate } from "./ConfigLoader.ts"

/** A rule in interlock.config.ts: `when` may also be a predicate over (args, call, ctx). */
export type RuleInput = Omit<RuleConfig, "when"> & { readonly when?: RuleConfig["when"] | RulePredicate }

/** The config as interlock.config.ts writes it: the JSON keys, code predicates in rules, and hooks. */
export interface ConfigInput extends Omit<GatewayConfig, "policy"> {
  readonly policy?: { readonly default?: "allow" | "deny" | "ask"; readonly rules?: ReadonlyArray<RuleInput> }
  /** Hooks as code, run after the built-in hooks (see @interlock/core's HooksConfig). */
  readonly hooks?: HooksConfig
}

/** Declares a gateway config with types; `export default defineConfig({ ... })`. Returns it unchanged. */
export const defineConfig = <const C extends ConfigInput>(config: C): C => config
