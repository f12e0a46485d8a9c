/** `interlock audit [--db F | --postgres URL] [--json] [--limit N] [--follow]`: query or tail the audit store. */
import { Console, Effect, Schedule } from "effect"
import { Command, Flag } from "effect/cli"
import { type AuditRecord, PENDING, PENDING_LABEL } from "../AuditRecord.ts"
import { auditSourceFlags, openAuditSource } from "./AuditSource.ts"
import { userFacing } from "./Shared.ts"

/** A row's outcome as shown: a write-ahead row never completed reads "sent, outcome unknown". */
export const outcomeLabel = (row: AuditRecord): string => (row.outcome === PENDING ? PENDING_LABEL : row.outcome)

/** One row as a line of text. */
export const formatRow = (row: AuditRecord): string => {
  const policy = row.decision === undefined ? "-" : `${row.decision}${row.rule === undefined ? "" : ` (${row.rule})`}`
  const hooks = (row.receipt?.hooks ?? []).map((run) => `${run.id}:${run.status}`).join(",")
  return [
    String(row.id ?? "").padStart(5),
    new Date(row.time).toISOString(),
    (row.principal ?? "-").padEnd(8),
    `${row.server}/${row.tool}`.padEnd(28),
    policy.padEnd(18),
    (row.approval ?? "-").padEnd(14),
    outcomeLabel(row).padEnd(10),
    `${row.durationMs.toFixed(1)}ms`.padStart(9),
    hooks
  ].join("  ")
}

const print = (rows: ReadonlyArray<AuditRecord>, json: boolean) =>
  Effect.forEach(rows, (row) => Console.log(json ? JSON.stringify(row) : formatRow(row)), { discard: true })

/** The audit command. */
export const auditCommand = Command.make(
  "audit",
  {
    ...auditSourceFlags("to read"),
    json: Flag.Boolean("json").pipe(Flag.withDescription("One JSON object per line"), Flag.withDefault(false)),
    limit: Flag.Int("limit").pipe(Flag.withDescription("How many recent rows"), Flag.withDefault(50)),
    follow: Flag.Boolean("follow").pipe(Flag.withAlias("f"), Flag.withDescription("Keep printing new rows as they are written"), Flag.withDefault(false))
  },
  ({ db, json, follow, limit, postgres }) =>
    userFacing(Effect.gen(function*() {
      const store = yield* openAuditSource({ db, postgres })
      const rows = [...(yield* store.query({ limit }))].reverse()
      yield* print(rows, json)
      if (!follow) return
      let last = rows.length > 0 ? rows[rows.length - 1].id ?? 0 : 0
      yield* Effect.gen(function*() {
        const fresh = [...(yield* store.query({ afterId: last, limit: 1000 }))].reverse()
        if (fresh.length > 0) last = fresh[fresh.length - 1].id ?? last
        yield* print(fresh, json)
      }).pipe(Effect.repeat(Schedule.spaced("500 millis")))
    }).pipe(Effect.scoped))
).pipe(Command.withDescription("Query or tail the audit store (SQLite --db, or a shared Postgres store with --postgres)"))

