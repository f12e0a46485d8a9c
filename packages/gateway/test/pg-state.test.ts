/**
 * The shared state's stores on a real Postgres server (test/postgres.ts), each opened twice, as two
 * replicas would: the token bucket agrees with effect's in-memory store at the same explicit
 * times and never lets concurrent takes past the limit; a used state is claimed once across
 * replicas; an approval pending on one is answered through the other, but only for its digest and
 * never once its replica is gone; a pin seen first on one holds on the other; a broken store fails
 * with a StateError that shows no secret. Then a whole gateway on the shared state: an unanswered
 * approval times out, and a failing store refuses the call.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigError } from "@interlock/core"
import { Clock, Deferred, Duration, Effect, Exit, Fiber, Layer, Redacted, Schema } from "effect"
import * as RateLimiter from "effect/persistence/RateLimiter"
import * as PgApprovalQueue from "../src/state/PgApprovalQueue.ts"
import * as PgRateLimiterStore from "../src/state/PgRateLimiterStore.ts"
import { prune } from "../src/state/PgState.ts"
import * as PgToolPins from "../src/state/PgToolPins.ts"
import * as PgUsedStates from "../src/state/PgUsedStates.ts"
import { open } from "../src/state/StateDatabase.ts"
import { toolText } from "./cli-process.ts"
import { echoServer, httpClient, startGateway } from "./e2e.ts"
import { planOf } from "./fixtures.ts"
import { assertHides, usePostgres } from "./postgres.ts"

const server = usePostgres()

/** Two replicas' connections to one fresh database. */
const twoReplicas = Effect.gen(function*() {
  const database = yield* server.freshDatabase()
  const url = Redacted.make(server.url(database))
  const [a, b] = yield* Effect.all([open(url), open(url)], { concurrency: 2 })
  return { database, a, b }
})

/** Runs `effect` with the time standing at `t` (epoch ms); sleeping still takes real time. */
const at = (t: number) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Clock.clockWith(Effect.succeed), (real) =>
    Effect.provideService(effect, Clock.Clock, {
      currentTimeMillisUnsafe: () => t,
      currentTimeMillis: Effect.succeed(t),
      currentTimeNanosUnsafe: () => BigInt(t) * 1_000_000n,
      currentTimeNanos: Effect.succeed(BigInt(t) * 1_000_000n),
      monotonicTimeNanosUnsafe: () => real.monotonicTimeNanosUnsafe(),
      monotonicTimeNanos: real.monotonicTimeNanos,
      sleep: (duration) => real.sleep(duration)
    }))

const Int = (minimum: number, maximum: number) => Schema.Int.check(Schema.isBetween({ minimum, maximum }))

/** A bucket and the takes made of it: each after `advance` ms, of `tokens`. */
const Takes = Schema.Struct({
  limit: Int(1, 6),
  perMinute: Schema.Literals([1, 5, 7, 60, 600]),
  overflow: Schema.Boolean,
  steps: Schema.Array(Schema.Struct({ advance: Int(0, 30_000), tokens: Int(1, 3) })).check(Schema.isMaxLength(12))
})

const START = Date.UTC(2026, 0, 1)

describe("the shared token bucket (PgRateLimiterStore)", () => {
  it.live.prop(
    "answers as effect's in-memory store does at the same times, take for take",
    [Takes],
    ([{ limit, perMinute, overflow, steps }]) =>
      Effect.scoped(Effect.gen(function*() {
        const database = yield* server.freshDatabase()
        const db = yield* open(Redacted.make(server.url(database)))
        const shared = PgRateLimiterStore.make(db)
        const memory = yield* Effect.provide(Effect.service(RateLimiter.RateLimiterStore), RateLimiter.layerStoreMemory)
        const options = (tokens: number) => ({
          key: "alice\u0000fs\u0000write",
          tokens,
          limit,
          refillRate: Duration.millis(60_000 / perMinute),
          allowOverflow: overflow
        })
        let now = START
        for (const step of steps) {
          now += step.advance
          const expected = yield* at(now)(memory.tokenBucket(options(step.tokens)))
          const got = yield* at(now)(shared.tokenBucket(options(step.tokens)))
          assert.deepStrictEqual(got, expected, `at +${now - START} ms, taking ${step.tokens}`)
        }
      })),
    { timeout: 120_000, arbitrary: { runs: 25 } }
  )

  it.live(
    "a limit of 5 lets exactly 5 of 40 concurrent takes through two replicas",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { a, b } = yield* twoReplicas
        const limiters = yield* Effect.forEach([a, b], (db) =>
          Effect.provide(
            Effect.service(RateLimiter.RateLimiter),
            RateLimiter.layer.pipe(Layer.provide(PgRateLimiterStore.layer(db)))
          ))
        const takes = yield* Effect.forEach(Array.from({ length: 40 }, (_, i) => limiters[i % 2]), (limiter) =>
          Effect.exit(
            limiter.consume({
              algorithm: "token-bucket",
              onExceeded: "fail",
              limit: 5,
              window: "1 minute",
              key: "bob\u0000echo\u0000echo"
            })
          ), { concurrency: "unbounded" })
        assert.strictEqual(takes.filter(Exit.isSuccess).length, 5)
        // A key of any length is stored as its digest.
        const [row] = yield* a.sql.unsafe<{ readonly key: string }>("SELECT key FROM interlock_rate_buckets")
        assert.strictEqual(row.key, PgRateLimiterStore.bucketKey("bob\u0000echo\u0000echo"))
      })),
    60_000
  )
})

describe("used approval states (PgUsedStates)", () => {
  it.live(
    "of 20 concurrent claims of one id on two replicas exactly one wins; an expired mark is pruned and its state " +
      "stays refused",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { a, b } = yield* twoReplicas
        const stores = [PgUsedStates.make(a), PgUsedStates.make(b)]
        const claims = yield* Effect.forEach(Array.from({ length: 20 }, (_, i) => stores[i % 2]), (store) =>
          at(START)(store.claim("state-1", START + 60_000)), { concurrency: "unbounded" })
        assert.strictEqual(
          claims.filter((won) =>
            won
          ).length,
          1
        )
        assert.isFalse(
          yield* at(START + 60_000)(stores[1].claim("state-1", START + 60_000)),
          "an expired state is never accepted"
        )
        yield* prune(a, START + 60_000)
        assert.deepStrictEqual(yield* a.sql.unsafe("SELECT id FROM interlock_used_states"), [])
      })),
    60_000
  )
})

const REQUEST = {
  server: "echo",
  tool: "write_file",
  principal: "alice",
  reason: "writes need a person",
  rule: "writes",
  digest: "d1",
  args: { path: "a" }
}

describe("pending approvals shared by replicas (PgApprovalQueue)", () => {
  it.live(
    "an approval pending on A is listed on B, refused for another digest, answered on B, and A's call completes; " +
      "then it is gone",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { a, b } = yield* twoReplicas
        const queueA = yield* PgApprovalQueue.make(a)
        const queueB = yield* PgApprovalQueue.make(b)
        const waiting = yield* Effect.forkChild(queueA.wait(REQUEST))
        let listed = yield* queueB.listAll
        while (listed.length === 0) listed = yield* Effect.andThen(Effect.sleep("20 millis"), queueB.listAll)
        assert.deepStrictEqual(listed.map(({ id: _, time: __, ...rest }) => rest), [REQUEST])
        assert.deepStrictEqual(queueB.list(), [], "B waits for nothing itself")
        assert.isFalse(yield* queueB.answer(listed[0].id, { decision: "allow", by: "bob" }, "another-digest"))
        assert.isUndefined(waiting.pollUnsafe())
        assert.isTrue(yield* queueB.answer(listed[0].id, { decision: "allow", by: "bob" }, "d1"))
        assert.isFalse(
          yield* queueB.answer(listed[0].id, { decision: "deny", by: "mallory" }, "d1"),
          "answered once only"
        )
        assert.deepStrictEqual(yield* Fiber.join(waiting), { decision: "allow", by: "bob" })
        assert.deepStrictEqual(yield* queueB.listAll, [])
        assert.deepStrictEqual(yield* a.sql.unsafe("SELECT id FROM interlock_approvals"), [])
      })),
    60_000
  )

  it.live(
    "an entry whose replica is gone, or whose lease ran out, is neither listed nor answerable, and the reaper " +
      "deletes it",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { a, b } = yield* twoReplicas
        const queueB = yield* PgApprovalQueue.make(b)
        const now = yield* Clock.currentTimeMillis
        const insert =
          "INSERT INTO interlock_approvals (id, time, server, tool, reason, digest, replica, lease_until) VALUES " +
          "($1, $2, 'echo', 'write_file', 'r', 'd1', $3, $4)"
        // A replica with no connection left (killed), its lease still running; and a live replica whose lease ran out
        // (hung).
        const killed = "00000000-0000-4000-8000-000000000001"
        const hung = "00000000-0000-4000-8000-000000000002"
        yield* a.sql.unsafe(insert, [killed, now, crypto.randomUUID(), now + 60_000])
        yield* a.sql.unsafe(insert, [hung, now - 20_000, a.replica, now - 1])
        assert.deepStrictEqual(yield* queueB.listAll, [])
        for (const id of [killed, hung]) {
          assert.isFalse(yield* queueB.answer(id, { decision: "allow", by: "bob" }, "d1"), id)
        }
        assert.deepStrictEqual(yield* a.sql.unsafe("SELECT id FROM interlock_approvals WHERE answer IS NOT NULL"), [])
        yield* prune(b, now)
        assert.deepStrictEqual(yield* a.sql.unsafe("SELECT id FROM interlock_approvals"), [{ id: killed }])
      })),
    60_000
  )

  it.live(
    "a wait that is interrupted (the approval timed out) removes its entry everywhere",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { a, b } = yield* twoReplicas
        const queueA = yield* PgApprovalQueue.make(a)
        const queueB = yield* PgApprovalQueue.make(b)
        const queued = yield* Deferred.make<void>()
        const waiting = yield* Effect.forkChild(queueA.wait(REQUEST))
        yield* Effect.forkChild(
          Effect.repeat(queueB.listAll, { until: (listed) => listed.length > 0 }).pipe(
            Effect.andThen(Deferred.succeed(queued, undefined))
          )
        )
        yield* Deferred.await(queued)
        yield* Fiber.interrupt(waiting)
        assert.deepStrictEqual(yield* queueB.listAll, [])
        assert.deepStrictEqual(queueA.list(), [])
      })),
    60_000
  )
})

describe("tool pins shared by replicas (PgToolPins)", () => {
  it.live(
    "the first pin wins whichever replica writes it, and both read the same",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { a, b } = yield* twoReplicas
        const pinsA = PgToolPins.make(a)
        const pinsB = PgToolPins.make(b)
        const first = yield* pinsA.pin("echo", new Map([["echo", "fp-1"], ["add", "fp-add"]]))
        assert.deepStrictEqual([...first].sort(), [["add", "fp-add"], ["echo", "fp-1"]])
        const second = yield* pinsB.pin("echo", new Map([["echo", "fp-2-changed"], ["new", "fp-new"]]))
        assert.deepStrictEqual([...second].sort(), [["echo", "fp-1"], ["new", "fp-new"]])
        const other = yield* pinsB.pin("other", new Map([["echo", "fp-other"]]))
        assert.deepStrictEqual([...other], [["echo", "fp-other"]], "pins are per server")
      })),
    60_000
  )
})

describe("a broken state store", () => {
  it.live(
    "fails each operation with a StateError that shows neither the password nor the key",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { database, a } = yield* twoReplicas
        yield* server.admin(
          database,
          "DROP TABLE interlock_rate_buckets",
          "DROP TABLE interlock_used_states",
          "DROP TABLE interlock_approvals"
        )
        const limited = yield* Effect.flip(
          PgRateLimiterStore.make(a).tokenBucket({
            key: "secret-principal-key",
            tokens: 1,
            limit: 5,
            refillRate: Duration.seconds(12),
            allowOverflow: false
          })
        )
        assert.strictEqual(limited.reason._tag, "RateLimitStoreError")
        assertHides(limited, ["secret-principal-key", server.password])
        const claimed = yield* Effect.flip(PgUsedStates.make(a).claim("secret-state-id", Date.now() + 60_000))
        assert.strictEqual(claimed._tag, "StateError")
        assert.strictEqual(claimed.message, "shared state claim an approval state failed: SqlSyntaxError")
        const queue = yield* PgApprovalQueue.make(a)
        const waited = yield* Effect.flip(queue.wait({ ...REQUEST, args: { secret: "secret-arg-value" } }))
        assert.strictEqual(waited._tag, "StateError")
        assertHides(waited, ["secret-arg-value", server.password])
        assert.deepStrictEqual(queue.list(), [])
      })),
    60_000
  )

  it.live("does not open with a wrong password, and says where without the password", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Effect.scoped(open(Redacted.make(server.url("postgres", { user: "postgres", password: "wrong-Pa55word-44" }))))
      )
      assert.strictEqual(error._tag, "StateError")
      assert.include(error.message, `127.0.0.1:${server.port}/postgres`)
      assertHides(error, ["wrong-Pa55word-44"])
    }), 30_000)
})

describe("a gateway on the shared state", () => {
  const CONFIG = {
    servers: { echo: echoServer },
    audit: { postgres: "env:DATABASE_URL" },
    listen: { principals: { alice: { token: "env:ALICE" } } },
    approvals: { via: "console", timeoutSeconds: 0.5 },
    policy: { default: "allow", rules: [{ match: "echo/write_file", decision: "ask" }] },
    rateLimits: [{ match: "echo/echo", perMinute: 5 }]
  }

  it.live(
    "an approval nobody answers times out (denied) and leaves no entry; a store that fails refuses the call without " +
      "saying more",
    () =>
      Effect.gen(function*() {
        const database = yield* server.freshDatabase()
        const { http } = yield* startGateway(CONFIG, {
          DATABASE_URL: server.url(database),
          ALICE: "alice-token-0123456789"
        })
        const client = yield* httpClient(http.mcpUrl, { token: "alice-token-0123456789" })
        const call = (name: string, args: Record<string, unknown>) =>
          Effect.promise(() =>
            client.callTool({ name, arguments: args }).then((result) => ({
              isError: result.isError === true,
              text: toolText(result)
            }))
          )
        const timedOut = yield* call("write_file", { path: "a", content: "secret-content" })
        assert.isTrue(timedOut.isError)
        assert.include(timedOut.text, "approval denied")
        assert.deepStrictEqual(
          yield* server.admin(database, "SELECT id FROM interlock_approvals").pipe(Effect.map(([rows]) => rows)),
          []
        )
        assert.deepStrictEqual(yield* call("echo", { text: "first" }), { isError: false, text: "first" })

        // The buckets' table goes away: the guard fails, the call is refused, and nothing of the store or the call
        // shows.
        yield* server.admin(database, "DROP TABLE interlock_rate_buckets")
        const refused = yield* call("echo", { text: "secret-arg-value" })
        assert.isTrue(refused.isError)
        assert.include(refused.text, "rateLimits[0]")
        for (const hidden of ["secret-arg-value", "interlock_rate_buckets", "SqlSyntaxError", server.password]) {
          assert.notInclude(refused.text, hidden)
        }
        const [rows] = yield* server.admin(
          database,
          "SELECT outcome, args FROM interlock_audit WHERE tool = 'echo' ORDER BY id"
        )
        assert.deepStrictEqual(
          rows.map((row) => row.outcome),
          ["ok", "failed"],
          "the refused call never reached the server"
        )
      }),
    60_000
  )
})

describe("state.postgres in the config", () => {
  it.effect(
    "defaults to audit.postgres, names another database when set, and is a ConfigError naming the key for a " +
      "URL of another scheme",
    () =>
      Effect.gen(function*() {
        const env = { AUDIT: "postgres://u:pw-1@h/audit", STATE: "postgresql://u:pw-2@h/state" }
        assert.strictEqual(
          Redacted.value((yield* planOf({ audit: { postgres: "env:AUDIT" } }, env)).statePostgres!),
          env.AUDIT
        )
        const apart = yield* planOf({ audit: { path: ":memory:" }, state: { postgres: "env:STATE" } }, env)
        assert.strictEqual(Redacted.value(apart.statePostgres!), env.STATE)
        assert.notInclude(JSON.stringify(apart), "pw-2")
        assert.isUndefined(
          (yield* planOf({ audit: { path: ":memory:" } })).statePostgres,
          "no database: the state is the process's own"
        )
        const scheme = yield* Effect.flip(planOf({ state: { postgres: "mysql://u:pw-3@h/db" } }))
        assert.instanceOf(scheme, ConfigError)
        assert.strictEqual(scheme.path, "state.postgres")
        assert.notInclude(scheme.message, "pw-3")
      })
  )

  it.live(
    "a gateway with SQLite audit keeps its shared state in the database state.postgres names",
    () =>
      Effect.gen(function*() {
        const database = yield* server.freshDatabase()
        const { http } = yield* startGateway({
          servers: { echo: echoServer },
          audit: { path: ":memory:" },
          state: { postgres: "env:STATE_URL" },
          policy: { default: "allow" },
          rateLimits: [{ perMinute: 5 }]
        }, { STATE_URL: server.url(database) })
        const client = yield* httpClient(http.mcpUrl)
        assert.strictEqual(
          toolText(yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { text: "hi" } }))),
          "hi"
        )
        const [buckets, audit] = yield* server.admin(
          database,
          "SELECT attempt FROM interlock_rate_buckets",
          "SELECT to_regclass('interlock_audit')::text AS audit"
        )
        assert.deepStrictEqual(buckets, [{ attempt: 4 }])
        assert.deepStrictEqual(audit, [{ audit: null }], "the audit stayed in SQLite")
      }),
    60_000
  )
})
