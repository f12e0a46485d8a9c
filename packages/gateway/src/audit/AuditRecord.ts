/**
 * One audit row: what the gateway decided about one call. Written `pending` before the request goes
 * downstream and completed before the host gets its answer, so a row still `pending` after its
 * gateway stopped means "sent, outcome unknown".
 */
import { Receipt } from "@interlock/core"
import { Schema } from "effect"

/** A receipt as plain data (the fields of core's Receipt), as the store keeps it. */
export const ReceiptData = Schema.Struct(Receipt.fields)

/** A receipt as plain data. */
export type ReceiptData = typeof ReceiptData.Type

/** An audit row. `args` and `result` are present only with `capture: "full"`, and then redacted. */
export class AuditRecord extends Schema.Class<AuditRecord>("@interlock/gateway/AuditRecord")({
  /** The store's row id (absent before the row is written). */
  id: Schema.optionalKey(Schema.Number),
  /** Epoch milliseconds when the call started. */
  time: Schema.Number,
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
   * ok, tool_error, halted, recovered, withheld, denied, failed (core's outcomes); `pending` (sent,
   * not completed yet), `cancelled` (the host abandoned the call), `refused` (refused before the
   * pipeline: unknown tool, arguments not an object).
   */
  outcome: Schema.String,
  /** Whether the request went downstream (absent in rows written before this column existed). */
  sent: Schema.optionalKey(Schema.Boolean),
  /** Which gateway process wrote the row ({@link GATEWAY_INSTANCE} of that process). */
  instance: Schema.optionalKey(Schema.String),
  durationMs: Schema.Number,
  /** The full receipt: every hook that ran with its verdict, the policy and approval records (as plain data). */
  receipt: Schema.optionalKey(ReceiptData),
  /** For failures: the error's tag and Interlock's message (never arguments or results). */
  error: Schema.optionalKey(Schema.String),
  args: Schema.optionalKey(Schema.Json),
  result: Schema.optionalKey(Schema.Json),
  /** The host's own id of the call: Claude Code's `tool_use_id` (from a hook event, or `_meta["claudecode/toolUseId"]` on tools/call). */
  toolUseId: Schema.optionalKey(Schema.String),
  /** The host's session: Claude Code's `session_id` (hook events carry it; MCP tools/call does not). */
  sessionId: Schema.optionalKey(Schema.String)
}) {}

/** The outcome of a write-ahead row that was not completed (yet). */
export const PENDING = "pending"

/** How a `pending` row reads: the request went downstream and no outcome was recorded. */
export const PENDING_LABEL = "sent, outcome unknown"

/** This process's gateway instance, as written in its rows: its pid and start time. */
export const GATEWAY_INSTANCE = `${process.pid}@${Date.now().toString(36)}`

/** Per tool and time bucket: how many calls, how many denied (for the console's chart). */
export interface AuditBucket {
  readonly server: string
  readonly tool: string
  /** Bucket start, epoch ms. */
  readonly start: number
  readonly calls: number
  readonly denied: number
}

/** A query over the audit store. */
export interface AuditQuery {
  /** At most this many rows, newest first; default 100. */
  readonly limit?: number
  /** Only rows with an id greater than this (for tailing). */
  readonly afterId?: number
  /** Only the rows of this call id (what a host was told in a result's `_meta`). */
  readonly callId?: string
}
