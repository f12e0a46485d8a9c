/**
 * Rules policies: ordered rules with loose matchers, optional conditions (arguments, principals,
 * MCP tool annotations) and a default decision, compiled into an index (RuleIndex.ts). Pure.
 */
import { Result } from "effect"
import { describe } from "./internal/Describe.ts"
import { ConfigError } from "./Errors.ts"
import type { HookContext } from "./HookContext.ts"
import { type Matcher, type MatcherInput, parseMatcher } from "./Matcher.ts"
import { allow, ask, deny, type PolicyDecision } from "./PolicyDecision.ts"
import { buildIndex, firstMatch } from "./RuleIndex.ts"
import type { Tool } from "./Tool.ts"
import type { JsonObject, ToolCall } from "./ToolCall.ts"

/** The MCP tool annotations a rule can require (the server's claims; see {@link effectiveHints}). */
export interface AnnotationCondition {
  readonly readOnlyHint?: boolean
  readonly destructiveHint?: boolean
  readonly idempotentHint?: boolean
  readonly openWorldHint?: boolean
}

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
  /**
   * The rule applies only to tools whose annotations (with MCP's defaults for missing ones) have
   * these values. A tool the transport cannot describe counts as having the defaults: not
   * read-only, destructive, not idempotent, open-world.
   */
  readonly annotations?: AnnotationCondition
}

/** A rules policy: ordered rules and the decision when none applies (default "deny"). */
export interface RulesConfig {
  readonly rules: ReadonlyArray<PolicyRule>
  readonly default?: "allow" | "deny" | "ask"
}

interface CompiledRule {
  readonly index: number
  readonly id: string
  readonly matcher: Matcher
  readonly decision: PolicyDecision
  readonly when: PolicyRule["when"]
  readonly principals: ReadonlySet<string> | undefined
  readonly annotations: AnnotationCondition | undefined
}

const RULE_KEYS = new Set(["id", "match", "decision", "reason", "when", "principals", "annotations"])
const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const

/**
 * A tool's effective hints: its annotations, with MCP's defaults for missing ones (destructive and
 * idempotent only mean something for a tool that is not read-only).
 */
export const effectiveHints = (tool: Tool | undefined): Required<AnnotationCondition> => {
  const a = (tool?.annotations ?? {}) as Record<string, unknown>
  const readOnly = a.readOnlyHint === true
  return {
    readOnlyHint: readOnly,
    destructiveHint: !readOnly && a.destructiveHint !== false,
    idempotentHint: !readOnly && a.idempotentHint === true,
    openWorldHint: a.openWorldHint !== false
  }
}

const hintsMatch = (condition: AnnotationCondition, tool: Tool | undefined): boolean => {
  const hints = effectiveHints(tool)
  return HINTS.every((hint) => condition[hint] === undefined || condition[hint] === hints[hint])
}
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
  const annotations = rule.annotations as Record<string, unknown> | undefined
  if (annotations !== undefined) {
    if (typeof annotations !== "object" || annotations === null || Array.isArray(annotations)) return error("annotations must be an object")
    for (const [key, value] of Object.entries(annotations)) {
      if (!(HINTS as ReadonlyArray<string>).includes(key)) return error(`annotations: unknown hint "${key}"; the hints are ${HINTS.join(", ")}`)
      if (typeof value !== "boolean") return error(`annotations.${key} must be a boolean`)
    }
  }
  const id = (rule.id as string | undefined) ?? `rules[${index}]`
  return {
    index,
    id,
    matcher: matcher.success,
    decision: makeDecision(rule.decision as "allow" | "deny" | "ask", rule.reason as string | undefined, id),
    when: rule.when as PolicyRule["when"],
    principals: rule.principals === undefined ? undefined : new Set(rule.principals as ReadonlyArray<string>),
    annotations: annotations as AnnotationCondition | undefined
  }
}

/** A compiled rules policy: a decision per call, and whether a listed tool may be shown. */
export interface CompiledRules {
  readonly decide: (call: ToolCall, ctx: HookContext, tool?: Tool) => PolicyDecision
  readonly visible: (tool: Tool, ctx: HookContext) => boolean
}

const appliesTo = (rule: CompiledRule, ctx: HookContext, tool: Tool | undefined): boolean =>
  (rule.principals === undefined || (ctx.principal !== undefined && rule.principals.has(ctx.principal.id))) &&
  (rule.annotations === undefined || hintsMatch(rule.annotations, tool))

/** Deny and ask rules also match confusable skeletons of names (see Confusables.ts); allow rules do not. */
const restricts = (rule: CompiledRule): boolean => rule.decision._tag !== "Allow"

/** Compiles a rules config, or returns a ConfigError naming the rule at fault. Never throws. */
export const compileRules = (config: RulesConfig): CompiledRules | ConfigError => {
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
    const decide = (call: ToolCall, ctx: HookContext, tool?: Tool): PolicyDecision => {
      let failedRule: CompiledRule | undefined
      const applies = (rule: CompiledRule): boolean => {
        if (!appliesTo(rule, ctx, tool)) return false
        if (rule.when === undefined) return true
        try {
          return rule.when(call.args, call, ctx) === true
        } catch {
          failedRule = rule
          return true
        }
      }
      const rule = firstMatch(index, call.serverId, call.name, applies, restricts)
      if (failedRule !== undefined && rule === failedRule) return deny(`the condition of rule ${rule.id} failed`, rule.id)
      return rule === undefined ? defaultDecision : rule.decision
    }
    // A tool is hidden only when the first rule that could apply is an unconditional deny (or no
    // rule can apply and the default denies): a rule with a condition on arguments might allow it.
    const visible = (tool: Tool, ctx: HookContext): boolean => {
      const rule = firstMatch(index, tool.serverId, tool.name, (r) => appliesTo(r, ctx, tool), restricts)
      if (rule === undefined) return defaultDecision._tag !== "Deny"
      return rule.when !== undefined || rule.decision._tag !== "Deny"
    }
    return { decide, visible }
  } catch {
    return new ConfigError({ path: "policy", detail: "the policy config could not be read" })
  }
}

