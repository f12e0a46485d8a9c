/**
 * The tests' Postgres server (test/pg-server.ts starts it), started before a file's tests and
 * stopped after them, with helpers: statements as the admin, fresh databases, and checks that an
 * error hides what it must.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { afterAll, assert, beforeAll } from "vitest"
import { type PgServer, startPostgres } from "./pg-server.ts"

export { findBinDir, type Login, type PgServer, startPostgres } from "./pg-server.ts"

/** The server of a test file, with helpers; valid inside tests. */
export interface TestPostgres extends PgServer {
  /** Runs statements as the admin on `database` (each in autocommit); their rows. */
  readonly admin: (
    database: string,
    ...statements: ReadonlyArray<string>
  ) => Effect.Effect<Array<ReadonlyArray<Record<string, unknown>>>>
  /** Creates a fresh, empty database; its name. */
  readonly freshDatabase: () => Effect.Effect<string>
}

/**
 * Starts a server before the file's tests and stops it after them. When it cannot start (no
 * binaries), every test that uses it fails with the reason, rather than being skipped.
 */
export const usePostgres = (): TestPostgres => {
  let running: PgServer | undefined
  let failure: Error = new Error("the test Postgres server is not running")
  let databases = 0
  beforeAll(async () => {
    running = await startPostgres().catch((error: Error) => {
      failure = error
      return undefined
    })
  }, 60_000)
  afterAll(async () => {
    await running?.stop()
  }, 30_000)
  const current = () => {
    if (running === undefined) throw failure
    return running
  }
  const admin = (database: string, ...statements: ReadonlyArray<string>) =>
    Effect.scoped(Effect.gen(function*() {
      const sql = yield* PgClient.make({ url: Redacted.make(current().url(database)), maxConnections: 1 }).pipe(
        Effect.provide(Reactivity.layer)
      )
      const results: Array<ReadonlyArray<Record<string, unknown>>> = []
      for (const statement of statements) results.push(yield* sql.unsafe<Record<string, unknown>>(statement))
      return results
    })).pipe(Effect.orDie)
  return {
    get port() {
      return current().port
    },
    get password() {
      return current().password
    },
    url: (database, login) => current().url(database, login),
    stop: () => current().stop(),
    admin,
    freshDatabase: () =>
      Effect.suspend(() => {
        const name = `audit_${++databases}`
        return Effect.as(admin("postgres", `CREATE DATABASE ${name}`), name)
      })
  }
}

/** Asserts that `error` shows none of `secrets`: not in its message, its JSON or its string form. */
export const assertHides = (error: { readonly message: string }, secrets: ReadonlyArray<string>): void => {
  for (const secret of secrets) {
    assert.notInclude(error.message, secret)
    assert.notInclude(JSON.stringify(error), secret)
    assert.notInclude(String(error), secret)
  }
}

/**
 * Opens something (a store, a gateway) with `open` at the test server's `postgres` database with a
 * wrong `password`, and asserts it failed as it should: an AuditError at open that names the
 * server and the reason, and shows neither the password nor any of `secrets`. The error.
 */
export const expectLoginRefused = <
  E extends { readonly _tag: string; readonly message: string; readonly operation?: unknown },
  R
>(
  server: TestPostgres,
  password: string,
  open: (url: string) => Effect.Effect<unknown, E, R>,
  secrets: ReadonlyArray<string> = []
): Effect.Effect<E, unknown, R> =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(open(server.url("postgres", { user: "postgres", password })))
    assert.strictEqual(error._tag, "AuditError")
    assert.strictEqual(error.operation, "open")
    assert.include(error.message, `127.0.0.1:${server.port}/postgres`)
    assert.include(error.message, "AuthenticationError")
    assertHides(error, [password, ...secrets])
    return error
  })
