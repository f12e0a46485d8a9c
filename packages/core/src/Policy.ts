/**
 * The Policy service: the only allow authority. It answers Allow, Deny or Ask on the final call,
 * after every pre-hook. Built-ins: allowAll, denyAll, ordered rules (compiled into an index), and
 * a custom Effect. A custom policy that fails, dies or answers junk denies.
 */
import { Context, Effect, Exit, Layer, Result, Scope } from "effect"
import { describe } from "./Describe.ts"
import { ConfigError } from "./Errors.ts"
import type { HookContext } from "./HookContext.ts"
import { type MatcherInput, parseMatcher, type Matcher } from "./Matcher.ts"
import { buildIndex, firstMatch } from "./RuleIndex.ts"
import type { JsonObject, ToolCall } from "./ToolCall.ts"

/** The policy's answer. `rule` names the deciding rule, if a rule decided. */
export type PolicyDecision =
  | { readonly _tag: "Allow"; readonly rule?: string | undefined }
  | { readonly _tag: "Deny"; readonly reason: string; readonly rule?: string | undefined }
  | { readonly _tag: "Ask"; readonly reason: string; readonly rule?: string | undefined }

/** Allow, optionally naming the rule. */
export const allow = (rule?: string): PolicyDecision => ({ _tag: "Allow", rule })
/** Deny with a reason. */
export const deny = (reason: string, rule?: string): PolicyDecision => ({ _tag: "Deny", reason, rule })
/** Ask a human (the Approvals service). */
export const ask = (reason: string, rule?: string): PolicyDecision => ({ _tag: "Ask", reason, rule })

/** One policy rule. Rules are tried in order; the first that applies decides. */
export interface PolicyRule {
  /** Names the rule in receipts, errors and audit rows; default `rules[<index>]`. */
  readonly id?: string
  readonly match: MatcherInput
  readonly decision: "allow" | "deny" | "ask"
  readonly reason?: string
  /** The rule applies only when this holds of the final arguments. A predicate that throws denies. */
  readonly when?: (args: JsonObject, call: ToolCall, ctx: HookContext) => boolean
  /** The rule applies only to these principals (by id). */
  readonly principals?: ReadonlyArray<string>
}

/** A rules policy: ordered rules and the decision when none applies (default "deny"). */
export interface RulesConfig {
  readonly rules: ReadonlyArray<PolicyRule>
  readonly default?: "allow" | "deny" | "ask"
}

/** The service interface. */
export interface PolicyShape {
  readonly decide: (call: ToolCall, ctx: HookContext) => Effect.Effect<PolicyDecision>
}

interface CompiledRule {
  readonly index: number
  readonly id: string
  readonly matcher: Matcher
  readonly decision: PolicyDecision
  readonly when: PolicyRule["when"]
  readonly principals: ReadonlySet<string> | undefined
}

const RULE_KEYS = new Set(["id", "match", "decision", "reason", "when", "principals"])
const DECISIONS = new Set(["allow", "deny", "ask"])

const makeDecision = (decision: "allow" | "deny" | "ask", reason: string | undefined, rule?: string): PolicyDecision =>
  decision === "allow"
    ? allow(rule)
    : decision === "deny"
    ? deny(reason ?? "denied by policy", rule)
    : ask(reason ?? "approval required by policy", rule)

const compileRule = (raw: unknown, index: number): CompiledRule | ConfigError => {
  const path = `policy.rules[${index}]`
  const error = (detail: string) => new ConfigError({ path, detail })
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return error(`a rule must be an object, got ${describe(raw)}`)
  for (const key of Object.keys(raw)) if (!RULE_KEYS.has(key)) return error(`unknown key "${key}"`)
  const rule = raw as Record<string, unknown>
  const matcher = parseMatcher(rule.match)
  if (Result.isFailure(matcher)) return error(`match: ${matcher.failure}`)
  if (!DECISIONS.has(rule.decision as string)) return error(`decision must be "allow", "deny" or "ask"`)
  if (rule.reason !== undefined && typeof rule.reason !== "string") return error("reason must be a string")
  if (rule.id !== undefined && (typeof rule.id !== "string" || rule.id.length === 0)) return error("id must be a non-empty string")
  if (rule.when !== undefined && typeof rule.when !== "function") return error("when must be a function of (args, call, ctx)")
  if (rule.principals !== undefined && (!Array.isArray(rule.principals) || rule.principals.some((p) => typeof p !== "string"))) {
    return error("principals must be an array of strings")
  }
  const id = (rule.id as string | undefined) ?? `rules[${index}]`
  return {
    index,
    id,
    matcher: matcher.success,
    decision: makeDecision(rule.decision as "allow" | "deny" | "ask", rule.reason as string | undefined, id),
    when: rule.when as PolicyRule["when"],
    principals: rule.principals === undefined ? undefined : new Set(rule.principals as ReadonlyArray<string>)
  }
}

/** Compiles a rules config into a pure decision function, or a ConfigError naming the rule at fault. */
export const compileRules = (config: RulesConfig): ((call: ToolCall, ctx: HookContext) => PolicyDecision) | ConfigError => {
  try {
    if (typeof config !== "object" || config === null || !Array.isArray(config.rules)) {
      return new ConfigError({ path: "policy.rules", detail: "must be an array of rules" })
    }
    const fallback = config.default ?? "deny"
    if (!DECISIONS.has(fallback)) return new ConfigError({ path: "policy.default", detail: `must be "allow", "deny" or "ask"` })
    const compiled: Array<CompiledRule> = []
    for (let i = 0; i < config.rules.length; i++) {
      const rule = compileRule(config.rules[i], i)
      if (rule instanceof ConfigError) return rule
      compiled.push(rule)
    }
    const ids = new Set<string>()
    for (const rule of compiled) {
      if (ids.has(rule.id)) return new ConfigError({ path: `policy.rules[${rule.index}]`, detail: `duplicate rule id "${rule.id}"` })
      ids.add(rule.id)
    }
    const index = buildIndex(compiled)
    const defaultDecision = makeDecision(fallback, fallback === "deny" ? "no policy rule allows this call" : undefined)
    return (call, ctx) => {
      let failedRule: CompiledRule | undefined
      const applies = (rule: CompiledRule): boolean => {
        if (rule.principals !== undefined && (ctx.principal === undefined || !rule.principals.has(ctx.principal.id))) return false
        if (rule.when === undefined) return true
        try {
          return rule.when(call.args, call, ctx) === true
        } catch {
          failedRule = rule
          return true
        }
      }
      const rule = firstMatch(index, call.serverId, call.name, applies)
      if (failedRule !== undefined && rule === failedRule) return deny(`the condition of rule ${rule.id} failed`, rule.id)
      return rule === undefined ? defaultDecision : rule.decision
    }
  } catch {
    return new ConfigError({ path: "policy", detail: "the policy config could not be read" })
  }
}

const FAILED = deny("the policy failed to decide")

const isDecision = (value: unknown): value is PolicyDecision => {
  if (typeof value !== "object" || value === null) return false
  const v = value as Record<string, unknown>
  if (v.rule !== undefined && typeof v.rule !== "string") return false
  return v._tag === "Allow" || ((v._tag === "Deny" || v._tag === "Ask") && typeof v.reason === "string")
}

/** The Policy service. Provide one of its Layers to `Interlock.layer`. */
export class Policy extends Context.Service<Policy, PolicyShape>()("@interlock/core/Policy") {
  /** Decision constructors, for custom policies. */
  static readonly allow = allow
  static readonly deny = deny
  static readonly ask = ask

  /** Allows every call. */
  static readonly allowAll: Layer.Layer<Policy> = Layer.succeed(Policy, { decide: () => Effect.succeed(allow()) })

  /** Denies every call. */
  static readonly denyAll: Layer.Layer<Policy> = Layer.succeed(Policy, {
    decide: () => Effect.succeed(deny("all calls are denied by policy"))
  })

  /** Ordered rules with loose matchers, optional predicates and principals, and a default decision. */
  static rules(config: RulesConfig): Layer.Layer<Policy, ConfigError> {
    return Layer.effect(
      Policy,
      Effect.suspend(() => {
        const decide = compileRules(config)
        return decide instanceof ConfigError
          ? Effect.fail(decide)
          : Effect.succeed({ decide: (call: ToolCall, ctx: HookContext) => Effect.succeed(decide(call, ctx)) })
      })
    )
  }

  /** A custom policy. Failures, defects and answers that are not a decision deny (fail closed). */
  static make<E, R>(
    decide: (call: ToolCall, ctx: HookContext) => Effect.Effect<PolicyDecision, E, R>
  ): Layer.Layer<Policy, never, R> {
    return Layer.effect(
      Policy,
      Effect.map(Effect.context<R>(), (full) => {
        const context = Context.omit(Scope.Scope)(full) as Context.Context<R>
        return {
          decide: (call: ToolCall, ctx: HookContext) =>
            Effect.suspend(() => decide(call, ctx)).pipe(
              Effect.provideContext(context),
              Effect.exit,
              Effect.map((exit) => (Exit.isSuccess(exit) && isDecision(exit.value) ? exit.value : FAILED))
            )
        }
      })
    )
  }
}
