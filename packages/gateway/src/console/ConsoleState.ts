/**
 * What the console's API answers, for one viewer: the state the page polls (calls that pass the
 * filters, the filters' choices, the charts' series, pending approvals with their deadlines) and
 * one call's detail (its whole audit row). Everything comes from the audit store, whose rows hold
 * arguments and results only redacted, and from the approval queue, which holds redacted ones.
 */
import { Clock, Effect } from "effect"
import { type AuditRecord, shownOutcome } from "../audit/GatewayAuditRecord.ts"
import { versionOf } from "../config/ConfigHash.ts"
import type { GatewayShape } from "../runtime/Gateway.ts"
import { type ConsoleViewer, sees } from "./ConsoleAccess.ts"
import { passes, type StateQuery } from "./ConsoleInput.ts"
import { seriesOf } from "./ConsoleSeries.ts"

/** How many rows the table shows. */
const SHOWN_ROWS = 100

/** How many of the newest rows (of every principal) the state and a call's detail are read from. */
const SCANNED_ROWS = 2000

/** The charts' default window, in minutes. */
const DEFAULT_MINUTES = 30

const distinct = (values: ReadonlyArray<string | undefined>): ReadonlyArray<string> =>
  [...new Set(values.filter((value): value is string => value !== undefined))].sort()

/** A call as the table lists it. */
const summary = (row: AuditRecord) => ({
  id: row.id,
  time: row.time,
  principal: row.principal ?? null,
  server: row.server,
  tool: row.tool,
  decision: row.decision ?? null,
  rule: row.rule ?? null,
  approval: row.approval ?? null,
  approvedBy: row.receipt?.approval?.by ?? null,
  outcome: shownOutcome(row),
  durationMs: row.durationMs,
  hooks: (row.receipt?.hooks ?? []).map((run) => ({ id: run.id, event: run.event, status: run.status }))
})

/** The newest rows this viewer may see. */
const visible = (gateway: GatewayShape, viewer: ConsoleViewer) =>
  Effect.map(gateway.store.query({ limit: SCANNED_ROWS }), (rows) => ({
    rows: rows.filter((row) => sees(viewer, row.principal)),
    truncated: rows.length >= SCANNED_ROWS
  }))

/** The console's state as the page polls it, for one viewer and query. */
export const consoleState = (gateway: GatewayShape, viewer: ConsoleViewer, query: StateQuery) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const minutes = query.minutes ?? DEFAULT_MINUTES
    const { rows, truncated } = yield* visible(gateway, viewer)
    const matching = rows.filter((row) => passes(query, row))
    const timeoutMs = gateway.plan.approvals.timeoutMs
    // Every replica's, when they share their state.
    const pending = yield* gateway.approvals.listAll
    return {
      now,
      viewer,
      /** The config in force: its short version and full hash, as its audit rows record it. */
      config: versionOf(gateway.plan.configHash),
      minutes,
      /** True when older rows exist than the ones read: the charts and filters cover the newest only. */
      truncated,
      options: {
        principal: distinct(rows.map((row) => row.principal)),
        server: distinct(rows.map((row) => row.server)),
        tool: distinct(rows.map((row) => row.tool)),
        outcome: distinct(rows.map(shownOutcome))
      },
      calls: matching.slice(0, SHOWN_ROWS).map(summary),
      series: seriesOf(matching, now, minutes),
      // The queue stamps `time` when the approver starts waiting, just after the approvals timeout
      // started: the deadline shown is the timeout after it, later than the real one by that set-up only.
      approvals: pending
        .filter((pending) => sees(viewer, pending.principal))
        .map((pending) => ({ ...pending, deadline: pending.time + timeoutMs }))
    }
  })

/** One call's whole audit row (receipt, and arguments and result when captured, redacted), if the viewer may see it. */
export const callDetail = (gateway: GatewayShape, viewer: ConsoleViewer, id: number) =>
  Effect.map(visible(gateway, viewer), ({ rows }) => rows.find((row) => row.id === id))
