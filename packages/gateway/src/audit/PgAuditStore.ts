/**
 * The Postgres audit store on `@effect/sql-pg`, so that several replicas share one audit log. A row is one INSERT
 * (completing a write-ahead row, one UPDATE) in autocommit, committed when `record`, `begin` or `complete`
 * succeeds. The table (`interlock_audit`), its index and newer columns are made when missing, under a
 * transaction-scoped advisory lock; the statements are the SQLite store's (AuditRows).
 */
import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Layer, type Redacted, type Scope } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type { SqlError } from "effect/sql/SqlError"
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
import { describeUrl } from "./PostgresUrl.ts"

/** The table the Postgres store writes (in the connection's default schema). */
export const TABLE = "interlock_audit"

const SQL = auditSql("postgres", TABLE)

// Any fixed key: replicas creating the table take it in turn (CREATE ... IF NOT EXISTS alone can race).
const CREATE_LOCK = "SELECT pg_advisory_xact_lock(7331000001)"

// Whether the table and its index exist where the connection's search_path looks.
const EXISTING = "SELECT to_regclass($1)::text AS table_name, to_regclass($2)::text AS index_name"

// The table's columns (the one to_regclass found: the first schema of the search_path that has it).
const COLUMN_NAMES =
  `SELECT attname AS name FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped`

/** How long one statement may take before the store gives up (and a call fails closed). */
export const STATEMENT_TIMEOUT = Duration.seconds(10)

export { describeUrl } from "./PostgresUrl.ts"

// The reason's tag only: server messages can quote row values or the connection's settings.
const reasonOf = (error: SqlError | AuditError): string => (error._tag === "SqlError" ? error.reason._tag : "Timeout")

const run = <A, R>(
  effect: Effect.Effect<A, SqlError, R>,
  operation: "open" | "write" | "read",
  what: string
): Effect.Effect<A, AuditError, R> =>
  effect.pipe(
    Effect.timeoutOrElse({
      duration: STATEMENT_TIMEOUT,
      orElse: () => Effect.fail(new AuditError({ operation, detail: `${what}: timed out` }))
    }),
    Effect.mapError((error) =>
      error._tag === "AuditError" ? error : new AuditError({ operation, detail: `${what} (${reasonOf(error)})` })
    )
  )

/** Connects, creates the table if missing, and returns the store; the pool closes with the scope. */
export const make = (url: Redacted.Redacted<string>): Effect.Effect<AuditStoreShape, AuditError, Scope.Scope> =>
  Effect.gen(function*() {
    const where = describeUrl(url)
    const sql = yield* PgClient.make({ url, applicationName: "interlock-audit" }).pipe(
      Effect.provide(Reactivity.layer),
      (effect) => run(effect, "open", `could not open the audit store at ${where}`)
    )
    // Only what is missing is created, so a replica's user needs no CREATE right once the table exists.
    const create = Effect.gen(function*() {
      yield* sql.unsafe(CREATE_LOCK)
      const [found] = yield* sql.unsafe<Row>(EXISTING, [TABLE, SQL.index.name])
      if (found.table_name === null) yield* sql.unsafe(SQL.createTable)
      if (found.index_name === null) yield* sql.unsafe(SQL.index.create)
      // The migration of an older table: only missing columns are added (ALTER needs the table's owner).
      const columns = yield* sql.unsafe<Row>(COLUMN_NAMES, [TABLE])
      for (const statement of addColumns("postgres", TABLE, new Set(columns.map((row) => String(row.name))))) {
        yield* sql.unsafe(statement)
      }
    })
    yield* run(sql.withTransaction(create), "open", `could not open the audit store at ${where}`)
    return {
      record: (row) =>
        run(sql.unsafe(SQL.insert, insertParams(row)).pipe(Effect.asVoid), "write", "the row could not be inserted"),
      begin: (row) =>
        run(sql.unsafe<Row>(SQL.begin, insertParams(row)), "write", "the write-ahead row could not be inserted").pipe(
          Effect.map((rows) => Number(rows[0].id))
        ),
      complete: (id, row) =>
        run(
          sql.unsafe(SQL.complete, completeParams(row, id)).pipe(Effect.asVoid),
          "write",
          "the row could not be completed"
        ),
      query: (query) => {
        const read = readOf(query)
        return run(sql.unsafe<Row>(SQL[read.statement], read.params), "read", "the rows could not be read").pipe(
          Effect.map((rows) => rows.map(toRecord))
        )
      },
      buckets: (since, bucketMs) =>
        run(sql.unsafe<Row>(SQL.buckets, bucketParams(since, bucketMs)), "read", "the buckets could not be read").pipe(
          Effect.map(toBuckets)
        )
    }
  })

/** The Postgres AuditStore Layer for a connection URL (a secret); the pool closes with the Layer's scope. */
export const layer = (url: Redacted.Redacted<string>): Layer.Layer<AuditStore, AuditError> =>
  Layer.effect(AuditStore, make(url))
