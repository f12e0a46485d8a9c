/**
 * Rules policies: ordered rules with loose matchers, optional conditions (arguments, principals,
 * MCP tool annotations) and a default decision, compiled into an index (RuleIndex.ts). Pure.
 */
import { Result, Schema } from "effect"
import type { HookContext } from "../hooks/HookContext.ts"
import { firstProblem, type Problem, valueAt } from "../internal/ConfigIssue.ts"
import { describe } from "../internal/Describe.ts"
import { buildIndex, firstMatch } from "../internal/RuleIndex.ts"
import { ConfigError } from "../model/Errors.ts"
import type { Tool } from "../model/Tool.ts"
import type { JsonObject, ToolCall } from "../model/ToolCall.ts"
import { type Matcher, MatcherFromInput, MatcherInput, MatcherJson, matcherProblem } from "./Matcher.ts"
import { allow, ask, deny, type PolicyDecision } from "./PolicyDecision.ts"

/** The MCP tool annotations a rule can require (the server's claims; see {@link effectiveHints}). */
export interface AnnotationCondition {
  readonly readOnlyHint?: boolean
  readonly destructiveHint?: boolean
  readonly idempotentHint?: boolean
  readonly openWorldHint?: boolean
}

/** A rule's condition on the final arguments, written as code. */
export type RulePredicate = (args: JsonObject, call: ToolCall, ctx: HookContext) => boolean

/**
 * What a rule governs: tool calls (the default), resources (reads, subscriptions, template
 * completions, listing entries; matched on `server/uri`) or prompts (gets, completions, listing
 * entries; matched on `server/prompt`).
 */
export type RuleTarget = "tools" | "resources" | "prompts"

/** The Schema of a {@link RuleTarget}. */
export const RuleTarget = Schema.Literals(["tools", "resources", "prompts"])

/** One policy rule. Rules are tried in order; the first that applies decides. */
export interface PolicyRule {
  /** Names the rule in receipts, errors and audit rows; default `rules[<index>]`. */
  readonly id?: string | undefined
  /** What the rule governs; default `"tools"`. A rule on resources or prompts takes no `when` or `annotations`. */
  readonly on?: RuleTarget | undefined
  readonly match: MatcherInput
  readonly decision: "allow" | "deny" | "ask"
  readonly reason?: string | undefined
  /** The rule applies only when this holds of the final arguments. A predicate that throws denies. */
  readonly when?: RulePredicate | undefined
  /** The rule applies only to these principals: by id, or `role:NAME` for any principal with that role. */
  readonly principals?: ReadonlyArray<string> | undefined
  /**
   * The rule applies only to tools whose annotations (with MCP's defaults for missing ones) have
   * these values. A tool the transport cannot describe counts as having the defaults: not
   * read-only, destructive, not idempotent, open-world.
   */
  readonly annotations?: AnnotationCondition | undefined
}

/** A rules policy: ordered rules and the decision when none applies (default "deny"). */
export interface RulesConfig {
  readonly rules: ReadonlyArray<PolicyRule>
  readonly default?: "allow" | "deny" | "ask" | undefined
}

/** A rule's decision, and a rules policy's default decision. */
export const Decision = Schema.Literals(["allow", "deny", "ask"])

/** A rule's id: a non-empty string, unique within the policy. */
export const RuleId = Schema.NonEmptyString

/** The principals a rule applies to: ids, and `role:NAME` for a role. */
export const RulePrincipals = Schema.Array(Schema.NonEmptyString)

const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const

/** The Schema of an {@link AnnotationCondition}: each hint a boolean, no other key. */
export const AnnotationCondition: Schema.Codec<AnnotationCondition> = Schema.Struct({
  readOnlyHint: Schema.optionalKey(Schema.Boolean),
  destructiveHint: Schema.optionalKey(Schema.Boolean),
  idempotentHint: Schema.optionalKey(Schema.Boolean),
  openWorldHint: Schema.optionalKey(Schema.Boolean)
})

const Predicate = Schema.declare((u: unknown): u is RulePredicate => typeof u === "function")

/**
 * The fields of a policy rule that a JSON config can hold (a string regex, no predicate): a config
 * format's rule Schema spreads them and adds its own `when`.
 */
export const RuleFields = {
  id: Schema.optionalKey(RuleId),
  on: Schema.optionalKey(RuleTarget),
  match: MatcherJson,
  decision: Decision,
  reason: Schema.optionalKey(Schema.String),
  principals: Schema.optionalKey(RulePrincipals),
  annotations: Schema.optionalKey(AnnotationCondition.annotate({
    description:
      "MCP hints the tool must have, as its server lists them (MCP's defaults for missing ones). They are the " +
      "server's claims: a rule that relies on them trusts the server."
  }))
}

// In code an optional field may also be given as undefined.
const codeFields = <M extends Schema.Top>(match: M) => ({
  id: Schema.optional(RuleId),
  on: Schema.optional(RuleTarget),
  match,
  decision: Decision,
  reason: Schema.optional(Schema.String),
  when: Schema.optional(Predicate),
  principals: Schema.optional(RulePrincipals),
  annotations: Schema.optional(AnnotationCondition)
})

/** The Schema of a {@link PolicyRule} (decode it with `onExcessProperty: "error"`: unknown keys are mistakes). */
export const PolicyRule: Schema.Codec<PolicyRule> = Schema.Struct(codeFields(MatcherInput))

/** The Schema of a {@link RulesConfig}. */
export const RulesConfig: Schema.Codec<RulesConfig> = Schema.Struct({
  rules: Schema.Array(PolicyRule),
  default: Schema.optional(Decision)
})

// What compileRules decodes: RulesConfig with each matcher compiled as it is checked.
const CompilableRules = Schema.Struct({
  rules: Schema.Array(Schema.Struct(codeFields(MatcherFromInput))),
  default: Schema.optional(Decision)
})
const decodeRules = Schema.decodeUnknownResult(CompilableRules, { onExcessProperty: "error" })
type DecodedRule = typeof CompilableRules.Type["rules"][number]

interface CompiledRule {
  readonly index: number
  readonly id: string
  readonly on: RuleTarget
  readonly matcher: Matcher
  readonly decision: PolicyDecision
  readonly when: RulePredicate | undefined
  readonly principals: Audience | undefined
  readonly annotations: AnnotationCondition | undefined
}

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

const makeDecision = (decision: "allow" | "deny" | "ask", reason: string | undefined, rule?: string): PolicyDecision =>
  decision === "allow"
    ? allow(rule)
    : decision === "deny"
    ? deny(reason ?? "denied by policy", rule)
    : ask(reason ?? "approval required by policy", rule)

const compileRule = (rule: DecodedRule, index: number): CompiledRule => {
  const id = rule.id ?? `rules[${index}]`
  return {
    index,
    id,
    on: rule.on ?? "tools",
    matcher: rule.match,
    decision: makeDecision(rule.decision, rule.reason, id),
    when: rule.when,
    principals: rule.principals === undefined ? undefined : audience(rule.principals),
    annotations: rule.annotations
  }
}

// What each field of a rule must be, said the way a ConfigError says it.
const RULE_MESSAGES: Readonly<Record<string, string>> = {
  id: "id must be a non-empty string",
  on: `on must be "tools", "resources" or "prompts"`,
  decision: `decision must be "allow", "deny" or "ask"`,
  reason: "reason must be a string",
  when: "when must be a function of (args, call, ctx)",
  principals: "principals must be an array of non-empty strings",
  annotations: "annotations must be an object"
}

/** What is wrong with one rule, from its first Schema problem (path relative to the rule). */
const ruleDetail = ({ issue, message, path }: Problem, rule: unknown): string => {
  const [field, key] = path
  if (field === undefined) return `a rule must be an object, got ${describe(rule)}`
  if (field === "match") return `match: ${matcherProblem(message, valueAt(rule, ["match"]))}`
  if (issue._tag === "UnexpectedKey") {
    return key === undefined
      ? `unknown key "${String(field)}"`
      : `annotations: unknown hint "${String(key)}"; the hints are ${HINTS.join(", ")}`
  }
  if (field === "annotations" && key !== undefined) return `annotations.${String(key)} must be a boolean`
  return RULE_MESSAGES[String(field)] ?? "is invalid"
}

/** A rules config's first Schema problem as the ConfigError that names the rule (or the key) at fault. */
const configError = (problem: Problem, config: unknown): ConfigError => {
  const [top, index, ...rest] = problem.path
  if (top === "rules" && typeof index === "number") {
    return new ConfigError({
      path: `policy.rules[${index}]`,
      detail: ruleDetail({ ...problem, path: rest }, valueAt(config, ["rules", index]))
    })
  }
  if (top === "default") return new ConfigError({ path: "policy.default", detail: `must be "allow", "deny" or "ask"` })
  return new ConfigError({ path: "policy.rules", detail: "must be an array of rules" })
}

/** A compiled rules policy: a decision per call, and whether a listed tool may be shown. */
export interface CompiledRules {
  readonly decide: (call: ToolCall, ctx: HookContext, tool?: Tool) => PolicyDecision
  readonly visible: (tool: Tool, ctx: HookContext) => boolean
  /**
   * The decision on a resource (its URI) or a prompt (its name), when some rule governs resources
   * or prompts: the first such rule that applies, or Allow when none does (the default is the tools').
   */
  readonly decideOperation?:
    | ((on: "resources" | "prompts", serverId: string, name: string, ctx: HookContext) => PolicyDecision)
    | undefined
}

/** The ids and roles a rule's `principals` name; an entry `role:NAME` names a role, never an id. */
interface Audience {
  readonly ids: ReadonlySet<string>
  readonly roles: ReadonlySet<string>
}

const ROLE_PREFIX = "role:"

const audience = (entries: ReadonlyArray<string>): Audience => ({
  ids: new Set(entries.filter((entry) => !entry.startsWith(ROLE_PREFIX))),
  roles: new Set(
    entries.filter((entry) => entry.startsWith(ROLE_PREFIX)).map((entry) => entry.slice(ROLE_PREFIX.length))
  )
})

const includes = (audience: Audience, principal: HookContext["principal"]): boolean =>
  principal !== undefined &&
  (audience.ids.has(principal.id) || (principal.roles ?? []).some((role) => audience.roles.has(role)))

const appliesTo = (rule: CompiledRule, ctx: HookContext, tool: Tool | undefined, on: RuleTarget = "tools"): boolean =>
  rule.on === on && (rule.principals === undefined || includes(rule.principals, ctx.principal)) &&
  (rule.annotations === undefined || hintsMatch(rule.annotations, tool))

/** Deny and ask rules also match confusable skeletons of names (see Confusables.ts); allow rules do not. */
const restricts = (rule: CompiledRule): boolean => rule.decision._tag !== "Allow"

/** Compiles a rules config, or returns a ConfigError naming the rule at fault. Never throws. */
export const compileRules = (config: RulesConfig): CompiledRules | ConfigError => {
  try {
    // Keys beside rules and default were never read, and are still ignored (only rules are strict).
    const decoded = decodeRules(
      typeof config === "object" && config !== null ? { rules: config.rules, default: config.default } : config
    )
    if (Result.isFailure(decoded)) return configError(firstProblem(decoded.failure.issue), config)
    const fallback = decoded.success.default ?? "deny"
    const compiled = decoded.success.rules.map(compileRule)
    const ids = new Set<string>()
    for (const rule of compiled) {
      if (ids.has(rule.id)) {
        return new ConfigError({ path: `policy.rules[${rule.index}]`, detail: `duplicate rule id "${rule.id}"` })
      }
      ids.add(rule.id)
      if (rule.on !== "tools" && (rule.when !== undefined || rule.annotations !== undefined)) {
        return new ConfigError({
          path: `policy.rules[${rule.index}]`,
          detail: `a rule on ${rule.on} takes no ${
            rule.when === undefined ? "annotations" : "when"
          } (they are conditions on tool calls)`
        })
      }
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
      if (failedRule !== undefined && rule === failedRule) {
        return deny(`the condition of rule ${rule.id} failed`, rule.id)
      }
      return rule === undefined ? defaultDecision : rule.decision
    }
    // A tool is hidden only when the first rule that could apply is an unconditional deny (or no
    // rule can apply and the default denies): a rule with a condition on arguments might allow it.
    const visible = (tool: Tool, ctx: HookContext): boolean => {
      const rule = firstMatch(index, tool.serverId, tool.name, (r) => appliesTo(r, ctx, tool), restricts)
      if (rule === undefined) return defaultDecision._tag !== "Deny"
      return rule.when !== undefined || rule.decision._tag !== "Deny"
    }
    const governed = compiled.some((rule) => rule.on !== "tools")
    const decideOperation = (on: "resources" | "prompts", serverId: string, name: string, ctx: HookContext) => {
      const rule = firstMatch(index, serverId, name, (r) => appliesTo(r, ctx, undefined, on), restricts)
      return rule === undefined ? allow() : rule.decision
    }
    return governed ? { decide, visible, decideOperation } : { decide, visible }
  } catch {
    return new ConfigError({ path: "policy", detail: "the policy config could not be read" })
  }
}
