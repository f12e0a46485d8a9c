/**
 * The SQLite audit store on `node:sqlite` (DatabaseSync), in WAL mode. A row is written by one
 * synchronous INSERT in autocommit mode, so it is committed when `record` returns.
 */
import { Effect, Layer, type Scope } from "effect"
import { mkdirSync } from "node:fs"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { auditSql, bucketParams, insertParams, readOf, type Row, toBuckets, toRecord } from "./AuditRows.ts"
import { AuditError, AuditStore, type AuditStoreShape } from "./AuditStore.ts"

const SQL = auditSql("sqlite", "calls")

/** Opens (and creates) a SQLite audit database; `:memory:` for a private in-memory one. */
export const open = (file: string): AuditStoreShape & { readonly close: () => void } => {
  if (file !== ":memory:") mkdirSync(path.dirname(path.resolve(file)), { recursive: true })
  const db = new DatabaseSync(file)
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;")
  db.exec(SQL.createTable)
  db.exec(SQL.index.create)
  const insert = db.prepare(SQL.insert)
  const reads = { newest: db.prepare(SQL.newest), after: db.prepare(SQL.after) }
  const grouped = db.prepare(SQL.buckets)
  return {
    record: (row) =>
      Effect.try({
        try: () => {
          insert.run(...insertParams(row))
        },
        catch: () => new AuditError({ operation: "write", detail: "the row could not be inserted" })
      }),
    query: (query) =>
      Effect.try({
        try: () => {
          const read = readOf(query)
          return (reads[read.statement].all(...read.params) as Array<Row>).map(toRecord)
        },
        catch: () => new AuditError({ operation: "read", detail: "the rows could not be read" })
      }),
    buckets: (since, bucketMs) =>
      Effect.try({
        try: () => toBuckets(grouped.all(...bucketParams(since, bucketMs)) as Array<Row>),
        catch: () => new AuditError({ operation: "read", detail: "the buckets could not be read" })
      }),
    close: () => db.close()
  }
}

/** Opens a SQLite audit database for the current scope (it closes with it); an AuditError naming the file when it cannot. */
export const scoped = (file: string): Effect.Effect<AuditStoreShape, AuditError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.try({
      try: () => open(file),
      catch: () => new AuditError({ operation: "open", detail: `could not open ${file}` })
    }),
    (store) => Effect.sync(() => store.close())
  )

/** The SQLite AuditStore Layer; the database closes with the Layer's scope. */
export const layer = (file: string): Layer.Layer<AuditStore, AuditError> => Layer.effect(AuditStore, scoped(file))
