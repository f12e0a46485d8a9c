/**
 * The gateway's side of the audit record: core's AuditRecord (one record for the gateway's calls and
 * the Claude Code bridge's events), the write-ahead `pending` outcome, how an outcome is shown, and
 * the queries over a store. A row still `pending` after its gateway stopped means "sent, outcome unknown".
 */
import { AuditRecord, makeTrusted } from "@interlock/core"

export { AuditRecord, ReceiptData } from "@interlock/core"

/** The fields of an AuditRecord, as a writer assembles them before the record is made. */
export type AuditFields = {
  -readonly [K in keyof ConstructorParameters<typeof AuditRecord>[0]]: ConstructorParameters<typeof AuditRecord>[0][K]
}

/**
 * An AuditRecord made from fields whose types the compiler checked, without the constructor's
 * schema pass: `new AuditRecord` parses every field again, the receipt with each of its hook runs,
 * and was the largest single cost of the gateway's audit (two rows a call; bench/README.md has the
 * figures). The gateway builds its rows from typed values (core's Receipt, its own strings,
 * JSON it captured), so it only assigns them on the class's prototype, which is all the constructor
 * does once its input is parsed. Rows read back from a store are still decoded in full.
 */
export const trustedRecord = (fields: AuditFields): AuditRecord => makeTrusted(AuditRecord, fields)

/** The outcome of a write-ahead row that was not completed (yet). */
export const PENDING = "pending"

/** How a `pending` row reads: the request went downstream and no outcome was recorded. */
export const PENDING_LABEL = "sent, outcome unknown"

/**
 * A row's outcome as the CLI and the console show, group and filter it: the bridge's answer (keep_going, none, ...) for
 * its records, else the outcome.
 */
export const shownOutcome = (row: AuditRecord): string => row.claudeDecision ?? row.outcome

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
