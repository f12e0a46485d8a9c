/**
 * One audit record: what Interlock decided about one call or one host event. The gateway writes one per MCP call
 * (write-ahead: `pending`, then completed); the Claude Code bridge writes one per hook event it answers, with its
 * answer in `claudeDecision` and the outcome {@link ANSWERED}. It is core's because both writers depend on core
 * and its fields are core's; a Schema only, no store.
 */
import { Schema } from "effect"
import { Receipt } from "./Receipt.ts"

/** A receipt as plain data (the fields of core's Receipt), as a store keeps it. */
export const ReceiptData = Schema.Struct(Receipt.fields)

/** A receipt as plain data. */
export type ReceiptData = typeof ReceiptData.Type

/** What the Claude Code bridge answered to one hook event. */
export const ClaudeDecision = Schema.Literals([
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

/** What the Claude Code bridge answered to one hook event. */
export type ClaudeDecision = typeof ClaudeDecision.Type

/** The outcome of a bridge's record: it answered a Claude Code event (what it answered is its `claudeDecision`). */
export const ANSWERED = "answered"

/** An audit record. `args` and `result` are present only with the gateway's `capture: "full"`, and then redacted. */
export class AuditRecord extends Schema.Class<AuditRecord>("@interlock/core/AuditRecord")({
  /** The store's row id (absent before the row is written). */
  id: Schema.optionalKey(Schema.Number),
  /** Epoch milliseconds when the call (or the bridge's decision) started. */
  time: Schema.Number,
  /** Interlock's call id; the bridge's records carry Claude Code's `tool_use_id` (empty for agent events). */
  callId: Schema.String,
  principal: Schema.optionalKey(Schema.String),
  server: Schema.String,
  tool: Schema.String,
  digest: Schema.optionalKey(Schema.String),
  /** The policy's decision, when the call reached the policy. */
  decision: Schema.optionalKey(Schema.Literals(["allow", "deny", "ask"])),
  rule: Schema.optionalKey(Schema.String),
  /** The approval's answer, when the policy asked: allow or deny, and its source. */
  approval: Schema.optionalKey(Schema.String),
  /**
   * ok, tool_error, halted, recovered, withheld, denied, failed (core's outcomes); the gateway's
   * `pending` (sent, not completed yet), `cancelled` (the host abandoned the call), `refused`
   * (refused before the pipeline: unknown tool, arguments not an object); the bridge's `answered`.
   */
  outcome: Schema.String,
  /** Whether the request went downstream (absent in the bridge's records and in rows older than this column). */
  sent: Schema.optionalKey(Schema.Boolean),
  /** Which gateway process wrote the row (absent in the bridge's records). */
  instance: Schema.optionalKey(Schema.String),
  durationMs: Schema.Number,
  /** The full receipt: every hook that ran with its verdict, the policy and approval records (as plain data). */
  receipt: Schema.optionalKey(ReceiptData),
  /**
   * For failures: the error's tag and Interlock's message; for the bridge, the reason Claude Code was given. Never
   * arguments or results.
   */
  error: Schema.optionalKey(Schema.String),
  args: Schema.optionalKey(Schema.Json),
  result: Schema.optionalKey(Schema.Json),
  /**
   * The host's own id of the call: Claude Code's `tool_use_id` (from a hook event, or `_meta["claudecode/toolUseId"]`
   * on tools/call).
   */
  toolUseId: Schema.optionalKey(Schema.String),
  /** The host's session: Claude Code's `session_id` (hook events carry it; MCP tools/call does not). */
  sessionId: Schema.optionalKey(Schema.String),
  /** The Claude Code hook event the bridge answered (PreToolUse, Stop, ...). */
  event: Schema.optionalKey(Schema.String),
  /** What the bridge answered (never in `outcome`, which is {@link ANSWERED} for its records). */
  claudeDecision: Schema.optionalKey(ClaudeDecision),
  /** True when hooks rewrote the call's input (the bridge's tool events). */
  rewritten: Schema.optionalKey(Schema.Boolean),
  /**
   * Hex SHA-256 of the config that decided (the gateway's config and its Cedar file); absent in rows older than this
   * field.
   */
  configHash: Schema.optionalKey(Schema.String),
  /**
   * The host's MCP client as it named itself (`name/version`, from initialize or a 2026-07-28 request's `_meta`);
   * absent for the bridge and in older rows.
   */
  client: Schema.optionalKey(Schema.String),
  /**
   * How the gateway authenticated the call downstream: `static`, `clientCredentials`, `exchange`,
   * `perPrincipal`, `identity` alone, or one of the first four with `+identity`; absent when it sent
   * no credential (or was refused one), for the bridge and in older rows.
   */
  authForm: Schema.optionalKey(Schema.String),
  /** Which grant it went with (an issued token, a perPrincipal entry), as an opaque id: never the token. */
  authGrant: Schema.optionalKey(Schema.String)
}) {}
