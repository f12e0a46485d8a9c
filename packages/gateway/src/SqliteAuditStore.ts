/**
 * The SQLite audit store on `node:sqlite` (DatabaseSync), in WAL mode. A row is written by one
 * synchronous INSERT in autocommit mode, so it is committed when `record` returns.
 */
import { Effect, Layer, Schema } from "effect"
import { mkdirSync } from "node:fs"
import * as path from "node:path"
import { DatabaseSync, type StatementSync } from "node:sqlite"
import { type AuditBucket, type AuditQuery, AuditRecord, ReceiptData } from "./AuditRecord.ts"
import { AuditError, AuditStore, type AuditStoreShape } from "./AuditStore.ts"

const SCHEMA = `
CREATE TABLE IF NOT EXISTS calls (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  time INTEGER NOT NULL,
  call_id TEXT NOT NULL,
  principal TEXT,
  server TEXT NOT NULL,
  tool TEXT NOT NULL,
  digest TEXT,
  decision TEXT,
  rule TEXT,
  approval TEXT,
  outcome TEXT NOT NULL,
  duration_ms REAL NOT NULL,
  receipt TEXT,
  error TEXT,
  args TEXT,
  result TEXT
);
CREATE INDEX IF NOT EXISTS calls_time ON calls(time);
`

type Row = Record<string, string | number | null>

const decodeReceipt = Schema.decodeUnknownSync(ReceiptData)

const toRecord = (row: Row): AuditRecord => {
  const text = (key: string) => (typeof row[key] === "string" ? (row[key] as string) : undefined)
  const json = (key: string) => (typeof row[key] === "string" ? JSON.parse(row[key] as string) : undefined)
  const fields: Record<string, unknown> = {
    id: Number(row.id),
    time: Number(row.time),
    callId: String(row.call_id),
    server: String(row.server),
    tool: String(row.tool),
    outcome: String(row.outcome),
    durationMs: Number(row.duration_ms)
  }
  const optional = {
    principal: text("principal"),
    digest: text("digest"),
    decision: text("decision"),
    rule: text("rule"),
    approval: text("approval"),
    error: text("error"),
    receipt: row.receipt === null ? undefined : decodeReceipt(json("receipt")),
    args: json("args"),
    result: json("result")
  }
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) fields[key] = value
  return new AuditRecord(fields as ConstructorParameters<typeof AuditRecord>[0])
}

/** Opens (and creates) a SQLite audit database; `:memory:` for a private in-memory one. */
export const open = (file: string): AuditStoreShape & { readonly close: () => void } => {
  if (file !== ":memory:") mkdirSync(path.dirname(path.resolve(file)), { recursive: true })
  const db = new DatabaseSync(file)
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;")
  db.exec(SCHEMA)
  const insert: StatementSync = db.prepare(
    `INSERT INTO calls (time, call_id, principal, server, tool, digest, decision, rule, approval, outcome, duration_ms, receipt, error, args, result)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
  )
  const newest = db.prepare("SELECT * FROM calls ORDER BY id DESC LIMIT ?")
  const after = db.prepare("SELECT * FROM calls WHERE id > ? ORDER BY id DESC LIMIT ?")
  const grouped = db.prepare(
    `SELECT server, tool, (time / CAST(? AS INTEGER)) * CAST(? AS INTEGER) AS start, COUNT(*) AS calls, SUM(outcome = 'denied') AS denied
     FROM calls WHERE time >= ? GROUP BY server, tool, start ORDER BY start`
  )
  const orNull = (value: unknown) => (value === undefined ? null : JSON.stringify(value))
  return {
    record: (row) =>
      Effect.try({
        try: () => {
          insert.run(
            row.time,
            row.callId,
            row.principal ?? null,
            row.server,
            row.tool,
            row.digest ?? null,
            row.decision ?? null,
            row.rule ?? null,
            row.approval ?? null,
            row.outcome,
            row.durationMs,
            row.receipt === undefined ? null : JSON.stringify(row.receipt),
            row.error ?? null,
            orNull(row.args),
            orNull(row.result)
          )
        },
        catch: () => new AuditError({ operation: "write", detail: "the row could not be inserted" })
      }),
    query: (query: AuditQuery = {}) =>
      Effect.try({
        try: () => {
          const limit = Math.max(1, Math.min(10_000, Math.floor(query.limit ?? 100)))
          const rows = (query.afterId === undefined ? newest.all(limit) : after.all(query.afterId, limit)) as Array<Row>
          return rows.map(toRecord)
        },
        catch: () => new AuditError({ operation: "read", detail: "the rows could not be read" })
      }),
    buckets: (since, bucketMs) =>
      Effect.try({
        try: () => {
          const size = Math.max(1, Math.floor(bucketMs))
          return (grouped.all(size, size, since) as Array<Row>).map((row): AuditBucket => ({
            server: String(row.server),
            tool: String(row.tool),
            start: Number(row.start),
            calls: Number(row.calls),
            denied: Number(row.denied)
          }))
        },
        catch: () => new AuditError({ operation: "read", detail: "the buckets could not be read" })
      }),
    close: () => db.close()
  }
}

/** The SQLite AuditStore Layer; the database closes with the Layer's scope. */
export const layer = (file: string): Layer.Layer<AuditStore, AuditError> =>
  Layer.effect(
    AuditStore,
    Effect.acquireRelease(
      Effect.try({
        try: () => open(file),
        catch: () => new AuditError({ operation: "open", detail: `could not open ${file}` })
      }),
      (store) => Effect.sync(() => store.close())
    )
  )
