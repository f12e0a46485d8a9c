/**
 * The SQLite audit store on `node:sqlite` (DatabaseSync), in WAL mode. A row is one synchronous INSERT (completing
 * a write-ahead row, one UPDATE), committed when `record`, `begin` or `complete` succeeds: at once when no other
 * call is in flight, else with the other writes of the same event-loop turn (CommitGroup). The database and its
 * WAL and SHM files are the owner's only (0600), a directory it creates 0700.
 */
import { Effect, Layer, type Scope } from "effect"
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import {
  addColumns,
  auditSql,
  bucketParams,
  completeParams,
  insertParams,
  readOf,
  type Row,
  toBuckets,
  toRecord
} from "./AuditRows.ts"
import { AuditError, AuditStore, type AuditStoreShape } from "./AuditStore.ts"
import { commitGroup } from "./CommitGroup.ts"

const SQL = auditSql("sqlite", "calls")

/** The mode of the database and its WAL and SHM files: owner read and write only. */
export const FILE_MODE = 0o600

/** The mode of a directory the store creates for its database. */
export const DIR_MODE = 0o700

const SIDE_FILES = ["", "-wal", "-shm"]

// Files an older gateway (or a lax umask) left readable to others become 0600.
const tighten = (file: string): void => {
  for (const suffix of SIDE_FILES) if (existsSync(file + suffix)) chmodSync(file + suffix, FILE_MODE)
}

// Creates the file 0600 before SQLite opens it: SQLite gives the WAL and SHM files the database's mode.
const privateFiles = (file: string): void => {
  const created = mkdirSync(path.dirname(path.resolve(file)), { recursive: true, mode: DIR_MODE })
  if (created !== undefined) chmodSync(created, DIR_MODE)
  closeSync(openSync(file, "a", FILE_MODE))
  tighten(file)
}

/** Opens (and creates) a SQLite audit database; `:memory:` for a private in-memory one. */
export const open = (file: string): AuditStoreShape & { readonly close: () => void } => {
  if (file !== ":memory:") privateFiles(file)
  const db = new DatabaseSync(file)
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;")
  db.exec(SQL.createTable)
  db.exec(SQL.index.create)
  const existing = new Set(
    (db.prepare("SELECT name FROM pragma_table_info('calls')").all() as Array<Row>).map((row) => String(row.name))
  )
  for (const statement of addColumns("sqlite", "calls", existing)) db.exec(statement)
  if (file !== ":memory:") tighten(file)
  const insert = db.prepare(SQL.insert)
  const begin = db.prepare(SQL.begin)
  const complete = db.prepare(SQL.complete)
  const reads = { newest: db.prepare(SQL.newest), after: db.prepare(SQL.after), byCall: db.prepare(SQL.byCall) }
  const grouped = db.prepare(SQL.buckets)
  const group = commitGroup(db)
  // Write-ahead rows begun and not completed yet: the calls in flight, whose writes a write may join.
  let open = 0
  const writeError = (detail: string) => () => new AuditError({ operation: "write", detail })
  return {
    record: (row) =>
      group.write(
        () => void insert.run(...insertParams(row)),
        () => open === 0,
        writeError("the row could not be inserted")
      ),
    begin: (row) =>
      Effect.tap(
        group.write(() => Number((begin.get(...insertParams(row)) as Row).id), () =>
          open === 0, writeError("the write-ahead row could not be inserted")),
        () =>
          Effect.sync(() =>
            void open++
          )
      ),
    complete: (id, row) =>
      Effect.ensuring(
        group.write(() => void complete.run(...completeParams(row, id)), () =>
          open <= 1, writeError("the row could not be completed")),
        Effect.sync(() => {
          open = Math.max(0, open - 1)
        })
      ),
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

/**
 * Opens a SQLite audit database for the current scope (it closes with it); an AuditError naming the file when it
 * cannot.
 */
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
