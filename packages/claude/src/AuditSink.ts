/**
 * The audit sink of the bridge: one row per decision, in the same store as the gateway's. A row
 * holds what was decided and by whom (rule, hooks), never the arguments or results of a call.
 */
import { Context, Effect, Layer, Schema } from "effect"
import { Receipt } from "@interlock/core"

/** What the bridge answered. */
export const AuditDecision = Schema.Literals([
  /** A policy rule allowed explicitly. */
  "allow",
  "deny",
  "ask",
  /** No opinion: Claude Code's own permission flow decides. */
  "none",
  /** A prompt or an action was blocked. */
  "block",
  /** Stop or SubagentStop was blocked: the agent keeps going. */
  "keep_going",
  /** The run was stopped. */
  "halt",
  /** An event went on, possibly with context. */
  "continue",
  /** A tool's output was replaced (redacted). */
  "replace",
  /** A tool's output was withheld because a post-hook failed. */
  "withheld",
  /** A failure hook recovered the error with a result. */
  "recovered"
])

/** What the bridge answered. */
export type AuditDecision = typeof AuditDecision.Type

/** One hook run, as audited. */
export const AuditHook = Schema.Struct({
  id: Schema.String,
  status: Schema.String,
  failure: Schema.optional(Schema.String)
})

/** One audited decision of the bridge. */
export class AuditRow extends Schema.Class<AuditRow>("@interlock/claude/AuditRow")({
  /** Epoch milliseconds (from the Clock, so tests control it). */
  at: Schema.Number,
  source: Schema.Literal("claude-hook"),
  /** The Claude Code event. */
  event: Schema.String,
  sessionId: Schema.optional(Schema.String),
  toolUseId: Schema.optional(Schema.String),
  /** Interlock's server id and tool name, for tool events. */
  serverId: Schema.optional(Schema.String),
  tool: Schema.optional(Schema.String),
  decision: AuditDecision,
  /** The policy rule or hook that decided, if one did. */
  rule: Schema.optional(Schema.String),
  /** The reason given to Claude Code, if any (written by a rule or a hook, never the call's data). */
  reason: Schema.optional(Schema.String),
  hooks: Schema.Array(AuditHook),
  /** Digest of the final call (after rewrites), for tool calls that reached the policy. */
  digest: Schema.optional(Schema.String),
  /** True when hooks rewrote the call's input. */
  rewritten: Schema.optional(Schema.Boolean),
  /** How long the bridge took to decide, in ms. */
  durationMs: Schema.Number,
  /**
   * The receipt of the governed stage (tool events): hooks, policy, approval; no arguments or
   * results. The bridge never runs the tool: on PreToolUse `sent` means the call passed Interlock
   * and Claude Code may run it.
   */
  receipt: Schema.optional(Receipt)
}) {}

/** The service interface: record one row. A failure is reported; an allow whose row fails becomes a deny. */
export interface AuditSinkShape {
  readonly record: (row: AuditRow) => Effect.Effect<void, unknown>
}

/** Where the bridge's audit rows go. The gateway provides its audit store; tests use `memory`. */
export class AuditSink extends Context.Service<AuditSink, AuditSinkShape>()("@interlock/claude/AuditSink") {
  /** Rows go to `record` (the gateway passes its audit store's insert). */
  static layer(record: AuditSinkShape["record"]): Layer.Layer<AuditSink> {
    return Layer.succeed(AuditSink, { record })
  }

  /** Discards every row. */
  static readonly none: Layer.Layer<AuditSink> = Layer.succeed(AuditSink, { record: () => Effect.void })

  /** Keeps rows in memory: the Layer and the array it appends to. */
  static memory(): { readonly layer: Layer.Layer<AuditSink>; readonly rows: Array<AuditRow> } {
    const rows: Array<AuditRow> = []
    return { rows, layer: Layer.succeed(AuditSink, { record: (row) => Effect.sync(() => void rows.push(row)) }) }
  }
}
