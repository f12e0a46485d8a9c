/**
 * The Postgres audit store against a real Postgres server that this file starts (Debian's
 * binaries, a fresh data directory, password auth on 127.0.0.1) and stops at the end.
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { ConfigError, Receipt } from "@interlock/core"
import { Deferred, Effect, Fiber, Redacted, Schema } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { TestClock } from "effect/testing"
import type { AuditStoreShape } from "../src/audit/AuditStore.ts"
import { AuditRecord } from "../src/audit/GatewayAuditRecord.ts"
import * as PgAuditStore from "../src/audit/PgAuditStore.ts"
import * as SqliteAuditStore from "../src/audit/SqliteAuditStore.ts"
import {
  assertBridgeMigrated,
  assertMigrated,
  BRIDGE_ERA_ROWS,
  BRIDGE_ERA_TABLE,
  OLD_ROW,
  OLD_TABLE
} from "./audit-migration.ts"
import { assertConfigHashMigrated, HASHLESS_TABLE } from "./audit-migration.ts"
import { assertBothWritersRoundTrip } from "./audit-writers.ts"
import { planOf } from "./fixtures.ts"
import { assertHides, expectLoginRefused, usePostgres } from "./postgres.ts"

const server = usePostgres()

const pgStore = (database: string) => PgAuditStore.make(Redacted.make(server.url(database)))

const receipt = new Receipt({
  callId: "c1",
  serverId: "files",
  name: "read",
  hooks: [],
  sent: true,
  outcome: "ok",
  policy: { decision: "allow", rule: "r1" }
})

const Text = Schema.String.check(Schema.isPattern(/^[a-zA-Z0-9 ._:/é€-]{0,12}$/))
const RowInput = Schema.Struct({
  time: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 400_000 })),
  server: Schema.Literals(["files", "echo", "web"]),
  tool: Schema.Literals(["read", "write", "get-env"]),
  outcome: Schema.Literals(["ok", "denied", "failed", "withheld"]),
  principal: Schema.optionalKey(Schema.Literals(["alice", "bob"])),
  decision: Schema.optionalKey(Schema.Literals(["allow", "deny", "ask"])),
  eighths: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 80_000 })),
  error: Schema.optionalKey(Text),
  withReceipt: Schema.Boolean,
  args: Schema.optionalKey(Schema.Json)
})

const toRecord = (input: typeof RowInput.Type, index: number) =>
  new AuditRecord({
    time: input.time,
    callId: `call-${index}`,
    server: input.server,
    tool: input.tool,
    outcome: input.outcome,
    durationMs: input.eighths / 8,
    ...(input.principal === undefined ? {} : { principal: input.principal }),
    ...(input.decision === undefined ? {} : { decision: input.decision }),
    ...(input.error === undefined ? {} : { error: input.error }),
    ...(input.withReceipt ? { receipt, digest: "sha256:abc" } : {}),
    ...(input.args === undefined
      ? {}
      : { args: input.args, result: { content: [{ type: "text", text: "ok" }], isError: false } })
  })

/** Both stores' answers to the same questions. */
const answers = (store: AuditStoreShape, afterId: number, limit: number, since: number, bucketMs: number) =>
  Effect.all({
    newest: store.query(),
    limited: store.query({ limit }),
    after: store.query({ afterId }),
    everything: store.query({ limit: 10_000 }),
    byCall: store.query({ callId: `call-${afterId}` }),
    buckets: store.buckets(since, bucketMs),
    minute: store.buckets(0, 60_000)
  })

describe("Postgres audit store", () => {
  let parity: string | undefined
  it.live.prop(
    "record, query and buckets give the same answers as SQLite for the same rows",
    [
      Schema.Array(RowInput).check(Schema.isMaxLength(60)),
      Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 70 })),
      Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 150_000 }))
    ],
    ([inputs, cut, bucketMs]) =>
      Effect.gen(function*() {
        parity ??= yield* server.freshDatabase()
        const pg = yield* pgStore(parity)
        yield* server.admin(parity, `TRUNCATE ${PgAuditStore.TABLE} RESTART IDENTITY`)
        const sqlite = SqliteAuditStore.open(":memory:")
        yield* Effect.addFinalizer(() => Effect.sync(() => sqlite.close()))
        const records = inputs.map(toRecord)
        for (const record of records) {
          yield* pg.record(record)
          yield* sqlite.record(record)
        }
        const fromPg = yield* answers(pg, cut, cut + 1, cut * 1000, bucketMs)
        assert.deepStrictEqual(fromPg, yield* answers(sqlite, cut, cut + 1, cut * 1000, bucketMs))
        // And what comes back is what went in (JSON values as JSON text gives them back), newest first.
        assert.deepStrictEqual(fromPg.everything.map((row) => row.id), records.map((_, i) => i + 1).reverse())
        const stripped = fromPg.everything.map(({ id: _, ...rest }) => rest).reverse()
        assert.deepStrictEqual(stripped, records.map((record) => JSON.parse(JSON.stringify({ ...record }))))
        assert.deepStrictEqual(fromPg.byCall.map((row) => row.callId), cut < records.length ? [`call-${cut}`] : [])
        const denied = records.filter((record) => record.outcome === "denied").length
        assert.strictEqual(fromPg.minute.reduce((sum, bucket) => sum + bucket.denied, 0), denied)
      }),
    { timeout: 60_000, arbitrary: { runs: 30 } }
  )

  it.live(
    "replicas that start at once on an empty database all open, write concurrently, and each sees every row",
    () =>
      Effect.gen(function*() {
        const database = yield* server.freshDatabase()
        const replicas = yield* Effect.all(Array.from({ length: 4 }, () => pgStore(database)), {
          concurrency: "unbounded"
        })
        const writes = replicas.flatMap((store, replica) =>
          Array.from({ length: 25 }, (_, i) =>
            store.record(
              new AuditRecord({
                time: 1_000 + i,
                callId: `r${replica}-${i}`,
                server: "s",
                tool: `t${replica}`,
                outcome: i % 5 === 0 ? "denied" : "ok",
                durationMs: 1
              })
            ))
        )
        yield* Effect.all(writes, { concurrency: 16, discard: true })
        for (const store of replicas) {
          const rows = yield* store.query({ limit: 1000 })
          assert.strictEqual(rows.length, 100)
          assert.strictEqual(new Set(rows.map((row) => row.id)).size, 100)
          assert.deepStrictEqual(
            rows.map((row) => row.callId).sort(),
            replicas.flatMap((_, r) => Array.from({ length: 25 }, (_, i) => `r${r}-${i}`)).sort()
          )
          const buckets = yield* store.buckets(0, 60_000)
          assert.deepStrictEqual(buckets.map((b) => `${b.tool}:${b.calls}/${b.denied}`), [
            "t0:25/5",
            "t1:25/5",
            "t2:25/5",
            "t3:25/5"
          ])
        }
        // Tailing from one replica sees what another writes next.
        const [first, second] = replicas
        const last = (yield* first.query({ limit: 1 }))[0].id ?? 0
        yield* second.record(
          new AuditRecord({ time: 2_000, callId: "late", server: "s", tool: "t1", outcome: "ok", durationMs: 1 })
        )
        assert.deepStrictEqual((yield* first.query({ afterId: last })).map((row) => row.callId), ["late"])
        const tables = yield* server.admin(
          database,
          `SELECT COUNT(*) AS n FROM pg_indexes WHERE tablename = '${PgAuditStore.TABLE}'`
        )
        assert.strictEqual(Number(tables[0][0].n), 2)
      }),
    30_000
  )

  it.live(
    "a replica whose user may only SELECT and INSERT opens a store another user created, and writes to it",
    () =>
      Effect.gen(function*() {
        const database = yield* server.freshDatabase()
        const owner = yield* pgStore(database)
        const role = `${database}_writer`
        yield* server.admin(
          database,
          `CREATE ROLE ${role} LOGIN PASSWORD 'writer-Pw-1'`,
          `GRANT SELECT, INSERT ON ${PgAuditStore.TABLE} TO ${role}`
        )
        const login = { user: role, password: "writer-Pw-1" }
        const writer = yield* PgAuditStore.make(Redacted.make(server.url(database, login)))
        yield* writer.record(
          new AuditRecord({ time: 5, callId: "w", server: "s", tool: "t", outcome: "ok", durationMs: 1 })
        )
        assert.deepStrictEqual((yield* owner.query()).map((row) => `${row.id}:${row.callId}`), ["1:w"])
        // The same user cannot create the store in a database where it does not exist yet: an AuditError at open.
        const empty = yield* server.freshDatabase()
        const error = yield* Effect.flip(PgAuditStore.make(Redacted.make(server.url(empty, login))))
        assert.strictEqual(error.operation, "open")
        assert.include(error.message, "AuthorizationError")
      }),
    30_000
  )

  it.live(
    "a wrong password or a closed port is an AuditError at open that shows no password",
    () =>
      Effect.gen(function*() {
        const open = (url: string) => PgAuditStore.make(Redacted.make(url))
        yield* expectLoginRefused(server, "not-the-Pa55word", open, ["hunter2-Secret", server.password])
        const refused = yield* Effect.flip(open("postgres://someone:hunter2-Secret@127.0.0.1:1/audit"))
        assert.strictEqual(refused.operation, "open")
        assert.include(refused.message, "ConnectionError")
        assertHides(refused, ["not-the-Pa55word", "hunter2-Secret", server.password])
      }),
    30_000
  )

  it.live(
    "a table of the first release gets the new columns at open: old rows read back, write-ahead rows begin " +
      "and complete",
    () =>
      Effect.gen(function*() {
        const database = yield* server.freshDatabase()
        yield* server.admin(database, OLD_TABLE("postgres", PgAuditStore.TABLE), OLD_ROW(PgAuditStore.TABLE))
        const store = yield* pgStore(database)
        yield* assertMigrated(store)
      }),
    30_000
  )

  it.live(
    "a table written before the one audit record: the bridge's answers move from outcome to claudeDecision at open",
    () =>
      Effect.gen(function*() {
        const database = yield* server.freshDatabase()
        yield* server.admin(
          database,
          BRIDGE_ERA_TABLE("postgres", PgAuditStore.TABLE),
          ...BRIDGE_ERA_ROWS(PgAuditStore.TABLE)
        )
        yield* assertBridgeMigrated(yield* pgStore(database))
        yield* assertBridgeMigrated(yield* pgStore(database))
      }),
    30_000
  )

  it.live(
    "a table written before the config hash gets config_hash at open: old rows have none, new rows keep theirs",
    () =>
      Effect.gen(function*() {
        const database = yield* server.freshDatabase()
        yield* server.admin(database, HASHLESS_TABLE("postgres", PgAuditStore.TABLE), OLD_ROW(PgAuditStore.TABLE))
        yield* assertConfigHashMigrated(yield* pgStore(database))
      }),
    30_000
  )

  it.live("the bridge's and the gateway's records round-trip through Postgres", () =>
    Effect.gen(function*() {
      yield* assertBothWritersRoundTrip(yield* pgStore(yield* server.freshDatabase()))
    }), 30_000)

  it.live(
    "a write that fails (the table was dropped) is an AuditError, and reads say so too",
    () =>
      Effect.gen(function*() {
        const database = yield* server.freshDatabase()
        const store = yield* pgStore(database)
        const row = new AuditRecord({
          time: 1,
          callId: "x",
          server: "s",
          tool: "secret-tool-name",
          outcome: "ok",
          durationMs: 1,
          args: { token: "value-1234" }
        })
        yield* store.record(row)
        yield* server.admin(database, `DROP TABLE ${PgAuditStore.TABLE}`)
        const error = yield* Effect.flip(store.record(row))
        assert.strictEqual(error.operation, "write")
        assert.notInclude(error.message, "value-1234")
        assert.notInclude(error.message, "secret-tool-name")
        assert.strictEqual((yield* Effect.flip(store.query())).operation, "read")
        assert.strictEqual((yield* Effect.flip(store.buckets(0, 1000))).operation, "read")
      }),
    30_000
  )
})

describe("Postgres audit store, a server that stops answering", () => {
  it.effect(
    "a write blocked by a lock fails with an AuditError after the statement timeout instead of hanging, and the " +
      "store recovers",
    () =>
      Effect.gen(function*() {
        const database = yield* server.freshDatabase()
        const store = yield* pgStore(database)
        const sql = yield* PgClient.make({ url: Redacted.make(server.url(database)) }).pipe(
          Effect.provide(Reactivity.layer)
        )
        const locked = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        yield* Effect.forkScoped(sql.withTransaction(Effect.gen(function*() {
          yield* sql.unsafe(`LOCK TABLE ${PgAuditStore.TABLE} IN ACCESS EXCLUSIVE MODE`)
          yield* Deferred.succeed(locked, undefined)
          yield* Deferred.await(release)
        })))
        yield* Deferred.await(locked)
        const write = yield* Effect.forkChild(
          Effect.flip(
            store.record(
              new AuditRecord({ time: 1, callId: "x", server: "s", tool: "t", outcome: "ok", durationMs: 1 })
            )
          )
        )
        // Wait (on the server's word, not on a clock) until the INSERT is queued behind the lock.
        for (let waiting = 0; waiting === 0;) {
          const [row] = yield* sql.unsafe<{ n: unknown }>(
            "SELECT COUNT(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT%'"
          )
          waiting = Number(row.n)
        }
        yield* TestClock.adjust(PgAuditStore.STATEMENT_TIMEOUT)
        const error = yield* Fiber.join(write)
        assert.strictEqual(error.operation, "write")
        assert.include(error.message, "timed out")
        // Once the lock is gone, the same store writes again (the timed-out statement left no broken connection
        // behind).
        yield* Deferred.succeed(release, undefined)
        yield* store.record(
          new AuditRecord({ time: 2, callId: "y", server: "s", tool: "t", outcome: "ok", durationMs: 1 })
        )
        assert.include((yield* store.query()).map((row) => row.callId), "y")
      }),
    30_000
  )
})

describe("audit.postgres in the config", () => {
  it.effect("an env: or literal URL becomes a Redacted plan entry, and path is then unset", () =>
    Effect.gen(function*() {
      const plan = yield* planOf({ audit: { postgres: "env:AUDIT_DATABASE_URL" } }, {
        AUDIT_DATABASE_URL: "postgres://u:pw-XYZ@127.0.0.1:5432/db"
      })
      assert.isTrue(Redacted.isRedacted(plan.audit.postgres))
      assert.strictEqual(plan.audit.path, undefined)
      assert.strictEqual(Redacted.value(plan.audit.postgres!), "postgres://u:pw-XYZ@127.0.0.1:5432/db")
      assert.notInclude(JSON.stringify(plan.audit), "pw-XYZ")
      const literal = yield* planOf({ audit: { postgres: "postgresql://u:pw-ABC@db.internal/audit", capture: "full" } })
      assert.strictEqual(Redacted.value(literal.audit.postgres!), "postgresql://u:pw-ABC@db.internal/audit")
      assert.strictEqual(literal.audit.capture, "full")
    }))

  it.effect(
    "path and postgres together, a missing variable, or a URL of another scheme are ConfigErrors " +
      "naming the key",
    () =>
      Effect.gen(function*() {
        const errorOf = (audit: unknown, env: Record<string, string> = {}) => Effect.flip(planOf({ audit }, env))
        const both = yield* errorOf({ path: "a.db", postgres: "postgres://h/db" })
        assert.instanceOf(both, ConfigError)
        assert.strictEqual(both.path, "audit")
        assert.strictEqual((yield* errorOf({ postgres: "env:NOT_SET_ANYWHERE" })).path, "audit.postgres")
        const scheme = yield* errorOf({ postgres: "mysql://u:pw-777@h/db" })
        assert.strictEqual(scheme.path, "audit.postgres")
        assert.notInclude(scheme.message, "pw-777")
        const off = yield* planOf({ audit: { postgres: "env:NOT_SET_ANYWHERE", enabled: false } })
        assert.deepStrictEqual([off.audit.path, off.audit.postgres], [undefined, undefined])
      })
  )
})
