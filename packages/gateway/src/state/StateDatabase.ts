/**
 * The Postgres database of the gateway's shared state, so that several replicas behave as one. Opening it creates
 * the missing tables under a transaction-scoped advisory lock, so replicas that start at once do not race. Every
 * statement runs in autocommit under STATEMENT_TIMEOUT; its failure is a StateError naming the operation and the
 * driver's reason tag only (a server message can quote a row's values).
 */
import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, type Redacted, type Scope } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type { SqlError } from "effect/sql/SqlError"
import { describeUrl } from "../audit/PostgresUrl.ts"
import { StateError } from "./StateError.ts"

/** The tables of the shared state, each with the statement that creates it. */
export const TABLES = {
  interlock_rate_buckets: `CREATE TABLE interlock_rate_buckets (
    key text PRIMARY KEY, tokens double precision NOT NULL, last_refill double precision NOT NULL,
    attempt double precision NOT NULL, expires_at double precision NOT NULL)`,
  interlock_approvals: `CREATE TABLE interlock_approvals (
    id text PRIMARY KEY, time double precision NOT NULL, server text NOT NULL, tool text NOT NULL,
    principal text, reason text NOT NULL, rule text, digest text NOT NULL, args jsonb,
    replica text NOT NULL, lease_until double precision NOT NULL, answer jsonb)`,
  interlock_tool_pins: `CREATE TABLE interlock_tool_pins (
    server text NOT NULL, tool text NOT NULL, fingerprint text NOT NULL, pinned_at double precision NOT NULL,
    PRIMARY KEY (server, tool))`,
  interlock_used_states:
    `CREATE TABLE interlock_used_states (id text PRIMARY KEY, expires_at double precision NOT NULL)`
} as const

// Another fixed key than the audit store's: replicas creating the tables take it in turn.
const CREATE_LOCK = "SELECT pg_advisory_xact_lock(7331000002)"

/** How long one statement may take before the store gives up (and the call it serves is refused). */
export const STATEMENT_TIMEOUT = Duration.seconds(5)

/** An open state database: the client, this replica's id, and `run` for its statements. */
export interface StateDatabase {
  readonly sql: PgClient.PgClient
  /** This replica's id; its connections' application_name is `${APPLICATION_PREFIX}${replica}`. */
  readonly replica: string
  /** Runs a statement (or a few) with the store's deadline; a failure is a StateError for `operation`. */
  readonly run: <A, R>(
    operation: string,
    effect: Effect.Effect<A, SqlError | StateError, R>
  ) => Effect.Effect<A, StateError, R>
}

/**
 * The prefix of the application_name of a replica's connections. A replica is alive while one of
 * its connections is: its approvals' listener holds one for as long as it runs, and Postgres ends
 * the connections of a process that was killed, so another replica sees at once that it is gone.
 */
export const APPLICATION_PREFIX = "interlock-state-"

// The reason's tag only: server messages can quote row values or the connection's settings.
const detailOf = (error: SqlError | StateError): string => error._tag === "SqlError" ? error.reason._tag : error.detail

const run = <A, R>(
  operation: string,
  effect: Effect.Effect<A, SqlError | StateError, R>
): Effect.Effect<A, StateError, R> =>
  effect.pipe(
    Effect.timeoutOrElse({
      duration: STATEMENT_TIMEOUT,
      orElse: () => Effect.fail(new StateError({ operation, detail: "timed out" }))
    }),
    Effect.mapError((error) =>
      error._tag === "StateError" && error.operation === operation
        ? error
        : new StateError({ operation, detail: detailOf(error) })
    )
  )

/** Connects to the state database and creates its missing tables; the pool closes with the scope. */
export const open = (url: Redacted.Redacted<string>): Effect.Effect<StateDatabase, StateError, Scope.Scope> =>
  Effect.gen(function*() {
    const operation = `open at ${describeUrl(url)}`
    const replica = crypto.randomUUID()
    const sql = yield* run(
      operation,
      PgClient.make({ url, applicationName: `${APPLICATION_PREFIX}${replica}` }).pipe(Effect.provide(Reactivity.layer))
    )
    const create = Effect.gen(function*() {
      yield* sql.unsafe(CREATE_LOCK)
      for (const [table, statement] of Object.entries(TABLES)) {
        const [found] = yield* sql.unsafe<{ readonly name: string | null }>("SELECT to_regclass($1)::text AS name", [
          table
        ])
        if (found.name === null) yield* sql.unsafe(statement)
      }
    })
    yield* run(operation, sql.withTransaction(create))
    return { sql, replica, run }
  })
