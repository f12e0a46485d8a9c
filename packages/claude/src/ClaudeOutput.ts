/**
 * Claude Code's hook output, in its wire format (camelCase): the top-level fields, the
 * event-specific `hookSpecificOutput` (with `hookEventName` always present), the async marker and
 * PermissionRequest's decision. `decodeOutput` checks an output read from a boundary (a command
 * hook's stdout); `toWire` writes one with nil fields dropped.
 */
import { Exit, Schema } from "effect"
import type { ClaudeEventName } from "./ClaudeEvent.ts"

const optionalString = Schema.optional(Schema.String)

/** PermissionRequest's allow: the CLI requires `updatedInput`, so `toWire` always writes it. */
export const PermissionAllow = Schema.Struct({
  behavior: Schema.Literal("allow"),
  updatedInput: Schema.optional(Schema.JsonObject),
  updatedPermissions: Schema.optional(Schema.Array(Schema.Json))
})
/** PermissionRequest's allow. */
export type PermissionAllow = typeof PermissionAllow.Type

/** PermissionRequest's deny: the CLI requires `message`, so `toWire` always writes it. */
export const PermissionDeny = Schema.Struct({
  behavior: Schema.Literal("deny"),
  message: optionalString,
  interrupt: Schema.optional(Schema.Boolean)
})
/** PermissionRequest's deny. */
export type PermissionDeny = typeof PermissionDeny.Type

/** A PermissionRequest decision. */
export const PermissionDecision = Schema.Union([PermissionAllow, PermissionDeny])
/** A PermissionRequest decision. */
export type PermissionDecision = typeof PermissionDecision.Type

const context = { additionalContext: optionalString }
const specific = <const E extends ClaudeEventName, const F extends Schema.Struct.Fields>(event: E, fields: F) =>
  Schema.Struct({ hookEventName: Schema.Literal(event), ...fields })

/** The event-specific output of each event that has one (Stop and SubagentStop have none). */
export const SPECIFIC_OUTPUTS = {
  PreToolUse: specific("PreToolUse", {
    permissionDecision: Schema.optional(Schema.Literals(["allow", "deny", "ask"])),
    permissionDecisionReason: optionalString,
    updatedInput: Schema.optional(Schema.JsonObject),
    ...context
  }),
  PostToolUse: specific("PostToolUse", { ...context, updatedMCPToolOutput: Schema.optional(Schema.Json) }),
  PostToolUseFailure: specific("PostToolUseFailure", context),
  UserPromptSubmit: specific("UserPromptSubmit", context),
  Notification: specific("Notification", context),
  SubagentStart: specific("SubagentStart", context),
  PreCompact: specific("PreCompact", { customInstructions: optionalString }),
  PermissionRequest: specific("PermissionRequest", { decision: Schema.optional(PermissionDecision) })
} as const

/** The events that have an event-specific output. */
export type SpecificEvent = keyof typeof SPECIFIC_OUTPUTS

/** An event-specific output. */
export type HookSpecificOutput = { [E in SpecificEvent]: typeof SPECIFIC_OUTPUTS[E]["Type"] }[SpecificEvent]

/** The synchronous output: top-level fields and an optional event-specific part. */
export const Output = Schema.Struct({
  continue: Schema.optional(Schema.Boolean),
  suppressOutput: Schema.optional(Schema.Boolean),
  stopReason: optionalString,
  /** `block` blocks the action; `approve` is Claude Code's older spelling of a PreToolUse allow. */
  decision: Schema.optional(Schema.Literals(["block", "approve"])),
  systemMessage: optionalString,
  reason: optionalString,
  hookSpecificOutput: Schema.optional(Schema.Union(Object.values(SPECIFIC_OUTPUTS)))
})
/** The synchronous output. */
export type Output = typeof Output.Type

/** The hook will answer later: Claude Code goes on without waiting. */
export const AsyncOutput = Schema.Struct({
  async: Schema.Literal(true),
  asyncTimeout: Schema.optional(Schema.Number)
})
/** The async marker. */
export type AsyncOutput = typeof AsyncOutput.Type

/** Any hook output. */
export type AnyOutput = Output | AsyncOutput

/** The empty output: no opinion. */
export const EMPTY: Output = Object.freeze({})

/** Whether an output is the async marker. */
export const isAsync = (output: AnyOutput): output is AsyncOutput => (output as { async?: unknown }).async === true

// Strict: a key outside the format (an `_tag`, a typo) makes the value junk, not an empty output.
const STRICT = { onExcessProperty: "error" } as const
const decodeSync = Schema.decodeUnknownExit(Output)
const decodeAsync = Schema.decodeUnknownExit(AsyncOutput)

/**
 * Decodes a hook output for `event`. Undefined when it is not one: a wrong type, an unknown key,
 * an event-specific part of another event, or fields of the wrong type. Never throws.
 */
export const decodeOutput = (value: unknown, event: ClaudeEventName): AnyOutput | undefined => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined
  if ("async" in value) {
    const exit = decodeAsync(value, STRICT)
    return Exit.isSuccess(exit) ? exit.value : undefined
  }
  const exit = decodeSync(value, STRICT)
  if (Exit.isFailure(exit)) return undefined
  const inner = exit.value.hookSpecificOutput
  return inner === undefined || inner.hookEventName === event ? exit.value : undefined
}

/** Drops undefined and null fields (the wire format omits nil fields). */
const compact = (fields: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(fields)) if (value !== undefined && value !== null) out[key] = value
  return out
}

const permissionToWire = (decision: PermissionDecision): Record<string, unknown> =>
  decision.behavior === "allow"
    ? compact({
      behavior: "allow",
      updatedInput: decision.updatedInput ?? {},
      updatedPermissions: decision.updatedPermissions
    })
    : compact({ behavior: "deny", message: decision.message ?? "", interrupt: decision.interrupt })

const specificToWire = (inner: HookSpecificOutput): Record<string, unknown> => {
  const { hookEventName, ...rest } = inner as HookSpecificOutput & { decision?: PermissionDecision }
  const fields = compact(rest)
  if (inner.hookEventName === "PermissionRequest" && inner.decision !== undefined) {
    fields.decision = permissionToWire(inner.decision)
  }
  return { hookEventName, ...fields }
}

/**
 * The JSON object Claude Code reads: camelCase, nil fields dropped, `hookEventName` always in
 * `hookSpecificOutput`, `asyncTimeout` only when set, and PermissionRequest decisions with the
 * fields the CLI requires. Unknown fields are not written.
 */
export const toWire = (output: AnyOutput): Record<string, unknown> => {
  if (isAsync(output)) return compact({ async: true, asyncTimeout: output.asyncTimeout })
  const base = compact({
    continue: output.continue,
    suppressOutput: output.suppressOutput,
    stopReason: output.stopReason,
    decision: output.decision,
    systemMessage: output.systemMessage,
    reason: output.reason
  })
  if (output.hookSpecificOutput !== undefined) base.hookSpecificOutput = specificToWire(output.hookSpecificOutput)
  return base
}
