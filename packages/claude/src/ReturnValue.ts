/**
 * What a Claude-style hook may return, and how it becomes Claude Code's output (the seed's return-value table):
 * `"ok"` is no opinion, `[action, opts]` a shorthand whose opts are output field names (camelCase or snake_case),
 * and a full output object passes through. Anything else, or an action the event does not take, gives a warning
 * and the empty output; warnings name types and events, never values.
 */
import { Exit, Predicate, Schema } from "effect"
import type { ClaudeEventName } from "./ClaudeEvent.ts"
import {
  type AnyOutput,
  decodeOutput,
  EMPTY,
  Output,
  PermissionDecision,
  SPECIFIC_OUTPUTS,
  type SpecificEvent
} from "./ClaudeOutput.ts"

/** A shorthand action. */
export type Action = "ok" | "allow" | "deny" | "ask" | "block" | "halt"

/** Options of a shorthand: output field names and values. */
export type ActionOptions = { readonly [field: string]: unknown }

/** What a Claude-style hook returns. */
export type ClaudeReturn =
  | "ok"
  | "allow"
  | "deny"
  | readonly [Action]
  | readonly [Action, ActionOptions]
  | AnyOutput
  | PermissionDecision

/** An output and the warnings met on the way. */
export interface Coerced<O = AnyOutput> {
  readonly output: O
  readonly warnings: ReadonlyArray<string>
}

const ACTIONS: ReadonlySet<string> = new Set(["ok", "allow", "deny", "ask", "block", "halt"])
const TOP_FIELDS = ["continue", "suppressOutput", "stopReason", "decision", "systemMessage", "reason"] as const
/** `{ok, opts}` builds the event-specific output for these events only (the seed's list). */
const OK_EVENTS: ReadonlySet<string> = new Set([
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "UserPromptSubmit",
  "Notification",
  "SubagentStart",
  "PreCompact"
])
const SPECIAL: Record<string, string> = { updated_mcp_tool_output: "updatedMCPToolOutput" }

/** `permission_decision_reason` -> `permissionDecisionReason`; camelCase passes unchanged. */
export const camelCase = (key: string): string =>
  SPECIAL[key] ?? key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())

const kindOf = (value: unknown): string =>
  value === null
    ? "null"
    : Array.isArray(value)
    ? "an array"
    : typeof value === "object"
    ? "an object"
    : `a ${typeof value}`

/** Keeps the options whose (camelCased) names are in `fields`; warns about the rest by name. */
const pick = (opts: ActionOptions, fields: ReadonlyArray<string>, warnings: Array<string>, what: string) => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(opts)) {
    const name = camelCase(key)
    if (fields.includes(name)) out[name] = value
    else warnings.push(`option "${key.slice(0, 60)}" is not a field of ${what}; it was dropped`)
  }
  return out
}

const specificFields = (event: SpecificEvent): ReadonlyArray<string> =>
  Object.keys(SPECIFIC_OUTPUTS[event].fields).filter((field) => field !== "hookEventName")

const decodeTop = Schema.decodeUnknownExit(Output)

/** Checks a built output; a field of the wrong type turns the whole answer into a warning. */
const checked = (candidate: Record<string, unknown>, event: ClaudeEventName, warnings: Array<string>): Coerced => {
  const exit = decodeTop(candidate)
  if (Exit.isSuccess(exit)) return { output: exit.value, warnings }
  return {
    output: EMPTY,
    warnings: [...warnings, `Hook returned options of the wrong type for ${event} — returning empty output`]
  }
}

const readShorthand = (value: unknown): { action: Action; opts: ActionOptions | string } | undefined => {
  if (value === "allow" || value === "deny") return { action: value, opts: {} }
  if (!Array.isArray(value) || value.length < 1 || value.length > 2 || !ACTIONS.has(value[0])) return undefined
  const opts = value[1] ?? {}
  if (typeof opts === "string" || Predicate.isObject(opts)) return { action: value[0] as Action, opts }
  return undefined
}

const deprecatedReason = (opts: ActionOptions | string, field: string, warnings: Array<string>): ActionOptions => {
  if (typeof opts !== "string") return opts
  warnings.push(`[action, "reason"] is deprecated; pass { ${field}: "..." }`)
  return { [field]: opts }
}

/**
 * A PermissionRequest decision from a hook's return: `"allow"`, `"deny"`, `["allow", opts]`,
 * `["deny", opts]` or a decision object. Anything else warns and denies (fail closed).
 */
export const coercePermission = (value: unknown): Coerced<PermissionDecision> => {
  const warnings: Array<string> = []
  if (Predicate.isObject(value) && "behavior" in value) {
    const exit = Schema.decodeUnknownExit(PermissionDecision)(value)
    if (Exit.isSuccess(exit)) return { output: exit.value, warnings }
  }
  const shorthand = readShorthand(value)
  if (shorthand?.action === "allow" && typeof shorthand.opts !== "string") {
    const opts = pick(shorthand.opts, ["updatedInput", "updatedPermissions"], warnings, "an allow decision")
    const exit = Schema.decodeUnknownExit(PermissionDecision)({ behavior: "allow", ...opts })
    if (Exit.isSuccess(exit)) return { output: exit.value, warnings }
  }
  if (shorthand?.action === "deny") {
    const opts = pick(
      deprecatedReason(shorthand.opts, "message", warnings),
      ["message", "interrupt"],
      warnings,
      "a deny decision"
    )
    const exit = Schema.decodeUnknownExit(PermissionDecision)({ behavior: "deny", ...opts })
    if (Exit.isSuccess(exit)) return { output: exit.value, warnings }
  }
  return {
    output: { behavior: "deny", message: "Hook returned an invalid permission decision" },
    warnings: [
      ...warnings,
      `Hook returned ${
        kindOf(value)
      } for a permission decision — use "allow", "deny", ["allow", opts] or ["deny", opts]`
    ]
  }
}

/** Turns a hook's return into Claude Code's output for `event`, per the seed's table. Never throws. */
export const coerce = (value: unknown, event: ClaudeEventName): Coerced => {
  try {
    return coerceUnsafe(value, event)
  } catch {
    return { output: EMPTY, warnings: [`Hook returned an unreadable value for ${event} — returning empty output`] }
  }
}

const coerceUnsafe = (value: unknown, event: ClaudeEventName): Coerced => {
  if (value === "ok") return { output: EMPTY, warnings: [] }
  if (Predicate.isObject(value)) {
    if (event === "PermissionRequest" && "behavior" in value) {
      const decision = coercePermission(value)
      return {
        output: { hookSpecificOutput: { hookEventName: event, decision: decision.output } },
        warnings: decision.warnings
      }
    }
    const output = decodeOutput(value, event)
    if (output !== undefined) return { output, warnings: [] }
    return {
      output: EMPTY,
      warnings: [`Hook returned an object that is not a ${event} output — returning empty output`]
    }
  }
  const shorthand = readShorthand(value)
  if (shorthand === undefined) {
    return {
      output: EMPTY,
      warnings: [`Hook returned an unrecognized value (${kindOf(value)}) for ${event} — returning empty output`]
    }
  }
  const warnings: Array<string> = []
  const { action } = shorthand
  switch (action) {
    case "halt":
    case "block": {
      const opts = pick(
        deprecatedReason(shorthand.opts, action === "halt" ? "stopReason" : "reason", warnings),
        TOP_FIELDS,
        warnings,
        "the output"
      )
      return checked(action === "halt" ? { ...opts, continue: false } : { ...opts, decision: "block" }, event, warnings)
    }
    case "allow":
    case "deny":
    case "ask": {
      if (event === "PreToolUse") {
        const opts = pick(
          deprecatedReason(shorthand.opts, "permissionDecisionReason", warnings),
          specificFields(event),
          warnings,
          "PreToolUse's output"
        )
        return checked(
          { hookSpecificOutput: { ...opts, hookEventName: event, permissionDecision: action } },
          event,
          warnings
        )
      }
      if (event === "PermissionRequest" && action !== "ask") {
        const decision = coercePermission(value)
        return {
          output: { hookSpecificOutput: { hookEventName: event, decision: decision.output } },
          warnings: decision.warnings
        }
      }
      return {
        output: EMPTY,
        warnings: [
          `Hook returned "${action}" for ${event}, which only applies to PreToolUse or PermissionRequest — ` +
          `returning empty output`
        ]
      }
    }
    case "ok": {
      if (!OK_EVENTS.has(event) || typeof shorthand.opts === "string") return { output: EMPTY, warnings: [] }
      const specificEvent = event as SpecificEvent
      const opts = pick(shorthand.opts, specificFields(specificEvent), warnings, `${event}'s output`)
      return checked({ hookSpecificOutput: { ...opts, hookEventName: event } }, event, warnings)
    }
  }
}
