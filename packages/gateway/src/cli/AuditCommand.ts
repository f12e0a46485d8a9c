/**
 * `interlock audit [--config F | --db F | --postgres URL] [--call ID] [--json] [--limit N] [--follow]`:
 * query or tail the audit store, as an aligned table with a header row (or one JSON object a line).
 */
import { Console, Effect, Option, Schedule } from "effect"
import { Command, Flag } from "effect/cli"
import { type AuditRecord, PENDING, PENDING_LABEL, shownOutcome } from "../audit/GatewayAuditRecord.ts"
import { columnWidths, formatLine } from "../config/TextTable.ts"
import { auditSourceFlags, openAuditSource } from "./AuditSource.ts"
import { configFlag } from "./ConfigFlag.ts"
import { userFacing } from "./UserFacing.ts"

/**
 * A row's outcome as shown: a write-ahead row never completed reads "sent, outcome unknown"; a bridge's record, its
 * answer.
 */
export const outcomeLabel = (row: AuditRecord): string => (row.outcome === PENDING ? PENDING_LABEL : shownOutcome(row))

/** The table's header row. */
export const HEADER = [
  "ID",
  "TIME",
  "PRINCIPAL",
  "TOOL",
  "POLICY",
  "APPROVAL",
  "OUTCOME",
  "MS",
  "CALL",
  "TOOL USE",
  "SESSION",
  "AUTH",
  "HOOKS"
] as const

// Right-aligned numbers; a call id is shown whole (it is what `--call` takes); hooks last, unpadded.
const COLUMNS = [
  { align: "right" },
  {},
  {},
  {},
  {},
  {},
  {},
  { align: "right" },
  { max: 64 },
  { max: 40 },
  { max: 40 },
  {},
  {}
] as const

/** One row as the table's cells, in {@link HEADER} order. */
export const rowCells = (row: AuditRecord): ReadonlyArray<string> => [
  String(row.id ?? ""),
  new Date(row.time).toISOString(),
  row.principal ?? "-",
  `${row.server}/${row.tool}`,
  row.decision === undefined ? "-" : `${row.decision}${row.rule === undefined ? "" : ` (${row.rule})`}`,
  row.approval ?? "-",
  outcomeLabel(row),
  row.durationMs.toFixed(1),
  row.callId === "" ? "-" : row.callId,
  row.toolUseId ?? "-",
  row.sessionId ?? "-",
  row.authForm ?? "-",
  (row.receipt?.hooks ?? []).map((run) => `${run.id}:${run.status}`).join(",") || "-"
]

/** Rows as aligned lines under the header. */
export const formatRows = (rows: ReadonlyArray<AuditRecord>): ReadonlyArray<string> => {
  const cells = [HEADER, ...rows.map(rowCells)]
  const widths = columnWidths(cells, COLUMNS)
  return cells.map((row) => formatLine(row, widths, COLUMNS))
}

/** A printer that keeps its column widths across batches (for --follow): the header once, columns only widen. */
const tablePrinter = () => {
  let widths: ReadonlyArray<number> = []
  let started = false
  return (rows: ReadonlyArray<AuditRecord>): ReadonlyArray<string> => {
    const cells = rows.map(rowCells)
    widths = columnWidths(started ? cells : [HEADER, ...cells], COLUMNS, widths)
    const lines = (started ? cells : [HEADER, ...cells]).map((row) => formatLine(row, widths, COLUMNS))
    started = true
    return lines
  }
}

/** The audit command. */
export const auditCommand = Command.make(
  "audit",
  {
    config: configFlag("The config whose audit store to read (default: interlock.config.* here)"),
    ...auditSourceFlags("to read"),
    call: Flag.String("call").pipe(
      Flag.withDescription(
        "Only the rows of this call id (a denied call's result names it in _meta[\"interlock/callId\"])"
      ),
      Flag.optional
    ),
    json: Flag.Boolean("json").pipe(Flag.withDescription("One JSON object per line"), Flag.withDefault(false)),
    limit: Flag.Int("limit").pipe(Flag.withDescription("How many recent rows"), Flag.withDefault(50)),
    follow: Flag.Boolean("follow").pipe(
      Flag.withAlias("f"),
      Flag.withDescription("Keep printing new rows as they are written"),
      Flag.withDefault(false)
    )
  },
  ({ call, config, db, follow, json, limit, postgres }) =>
    userFacing(
      Effect.gen(function*() {
        const store = yield* openAuditSource({ config, db, postgres })
        const callId = Option.getOrUndefined(call)
        // A custom store may not know the filter: the rows are checked here too.
        const read = (afterId: number | undefined, count: number) =>
          Effect.map(
            store.query({
              limit: count,
              ...(afterId === undefined ? {} : { afterId }),
              ...(callId === undefined ? {} : { callId })
            }),
            (rows) => [...rows].filter((row) => callId === undefined || row.callId === callId).reverse()
          )
        const table = tablePrinter()
        const print = (rows: ReadonlyArray<AuditRecord>) =>
          Effect.forEach(json ? rows.map((row) => JSON.stringify(row)) : table(rows), (line) => Console.log(line), {
            discard: true
          })
        const rows = yield* read(undefined, limit)
        if (rows.length === 0 && !follow) {
          return yield* Console.error(
            callId === undefined ? "No audited calls yet." : `No audited call has the id ${callId}.`
          )
        }
        yield* print(rows)
        if (!follow) return
        let last = rows.length > 0 ? rows[rows.length - 1].id ?? 0 : 0
        yield* Effect.gen(function*() {
          const fresh = yield* read(last, 1000)
          if (fresh.length === 0) return
          last = fresh[fresh.length - 1].id ?? last
          yield* print(fresh)
        }).pipe(Effect.repeat(Schedule.spaced("500 millis")))
      }).pipe(Effect.scoped)
    )
).pipe(
  Command.withDescription(
    "Query or tail the audit store that the config's gateway writes (or a SQLite --db, or a shared Postgres store " +
      "with --postgres)"
  )
)
