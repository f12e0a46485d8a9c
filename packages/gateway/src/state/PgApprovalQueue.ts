/**
 * The pending console approvals of several replicas, in the shared state database: an approval pending on replica
 * A is listed and answered through any replica's console, and the call on A completes. A learns of the answer by
 * LISTEN, or by its heartbeat (HEARTBEAT_MS), which renews its entries' leases; an entry is listed and answerable
 * only while its replica is alive, and leaving the wait deletes it.
 */
import { type ApprovalAnswer, JsonText } from "@interlock/core"
import { Clock, Deferred, Effect, Layer, Option, Queue, Schedule, Schema, type Scope } from "effect"
import { ApprovalQueue, type ApprovalQueueShape, type PendingApproval } from "./ApprovalQueue.ts"
import { APPLICATION_PREFIX, type StateDatabase } from "./StateDatabase.ts"

/** The channel an answer is notified on; the payload is the entry's id. */
export const CHANNEL = "interlock_approval"

/**
 * How long an entry stays answerable without its replica renewing it (a replica that hangs or cannot reach the
 * database). Replicas compare leases with their own clocks: keep them synchronised (NTP).
 */
export const LEASE_MS = 10_000

/**
 * How often a replica renews its entries' leases and collects their answers. A notification sent while its
 * listening connection is down is lost, so an answer reaches the replica at once, or at worst one heartbeat later.
 */
export const HEARTBEAT_MS = 2_000

/** The most pending approvals one listing returns. */
export const MAX_LISTED = 1_000

const INSERT =
  `INSERT INTO interlock_approvals (id, time, server, tool, principal, reason, rule, digest, args, replica, lease_until)
VALUES ($1, $2::float8, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11::float8)`

// Whether an entry's replica is alive at the time in parameter `now`: its lease runs, and one of its connections is
// open (Postgres ends a killed process's connections at once, so a killed replica leaves no approvable ghost).
const alive = (now: string) =>
  `lease_until > ${now}::float8 AND EXISTS (
  SELECT 1 FROM pg_stat_activity s WHERE s.application_name = '${APPLICATION_PREFIX}' || interlock_approvals.replica)`

const RENEW = "UPDATE interlock_approvals SET lease_until = $2::float8 WHERE replica = $1 RETURNING id, answer"

// An answer is set only on an unanswered, live entry with the digest the answerer was shown; the NOTIFY of the same
// statement is delivered on commit.
const ANSWER = `WITH answered AS (
  UPDATE interlock_approvals SET answer = $2::jsonb
  WHERE id = $1 AND answer IS NULL AND ($3::text IS NULL OR digest = $3::text) AND ${alive("$4")}
  RETURNING id)
SELECT pg_notify('${CHANNEL}', id) FROM answered`

const ANSWER_OF = "SELECT answer FROM interlock_approvals WHERE id = $1"

const LIST = `SELECT id, time, server, tool, principal, reason, rule, digest, args FROM interlock_approvals
WHERE answer IS NULL AND ${alive("$1")} ORDER BY time, id LIMIT ${MAX_LISTED}`

const REMOVE = "DELETE FROM interlock_approvals WHERE id = $1"

/** The statement that deletes the entries whose lease ran out (their replica is gone or cannot reach the database). */
export const PRUNE_APPROVALS = "DELETE FROM interlock_approvals WHERE lease_until <= $1"

/** An answer as the database holds it. */
const StoredAnswer = Schema.Union([
  Schema.Struct({ decision: Schema.Literal("allow"), by: Schema.optionalKey(Schema.String) }),
  Schema.Struct({
    decision: Schema.Literal("deny"),
    reason: Schema.optionalKey(Schema.String),
    by: Schema.optionalKey(Schema.String)
  })
])

const decodeAnswer = Schema.decodeUnknownOption(StoredAnswer)

// jsonb comes back parsed; an answer the gateway did not write is a deny.
const answerOf = (raw: unknown): ApprovalAnswer =>
  Option.getOrElse(
    decodeAnswer(typeof raw === "string" ? safeParse(raw) : raw),
    (): ApprovalAnswer => ({ decision: "deny", reason: "the stored answer could not be read" })
  )

const safeParse = (text: string): unknown => {
  try {
    return JsonText.parse(text)
  } catch {
    return undefined
  }
}

interface Row {
  readonly id: string
  readonly time: number
  readonly server: string
  readonly tool: string
  readonly principal: string | null
  readonly reason: string
  readonly rule: string | null
  readonly digest: string
  readonly args: unknown
}

const toPending = (row: Row): PendingApproval => ({
  id: row.id,
  time: Number(row.time),
  server: row.server,
  tool: row.tool,
  principal: row.principal ?? undefined,
  reason: row.reason,
  rule: row.rule ?? undefined,
  digest: row.digest,
  args: row.args
})

/** The shared queue over an open state database; its listener and heartbeat run in the scope. */
export const make = (db: StateDatabase): Effect.Effect<ApprovalQueueShape, never, Scope.Scope> =>
  Effect.gen(function*() {
    const replica = db.replica
    const local = new Map<
      string,
      { readonly pending: PendingApproval; readonly deferred: Deferred.Deferred<ApprovalAnswer> }
    >()
    const settle = (id: string, answer: ApprovalAnswer) => {
      const entry = local.get(id)
      return entry === undefined ? Effect.void : Deferred.succeed(entry.deferred, answer)
    }
    const heartbeat = Effect.gen(function*() {
      if (local.size === 0) return
      const now = yield* Clock.currentTimeMillis
      const rows = yield* db.run(
        "renew pending approvals",
        db.sql.unsafe<{ readonly id: string; readonly answer: unknown }>(RENEW, [replica, now + LEASE_MS])
      )
      for (const row of rows) if (row.answer !== null) yield* settle(row.id, answerOf(row.answer))
    })
    yield* heartbeat.pipe(Effect.ignore, Effect.repeat(Schedule.spaced(HEARTBEAT_MS)), Effect.forkScoped)
    const collect = (id: string) =>
      local.has(id)
        ? db.run("read an approval's answer", db.sql.unsafe<{ readonly answer: unknown }>(ANSWER_OF, [id])).pipe(
          Effect.flatMap((rows) =>
            rows.length === 1 && rows[0].answer !== null ? settle(id, answerOf(rows[0].answer)) : Effect.void
          )
        )
        : Effect.void
    // After each (re)connection the heartbeat collects what was answered while nobody listened.
    const listen = Effect.scoped(Effect.gen(function*() {
      const notifications = yield* db.sql.listen(CHANNEL)
      yield* heartbeat
      for (;;) yield* collect((yield* Queue.take(notifications)).payload)
    }))
    yield* listen.pipe(Effect.ignore, Effect.repeat(Schedule.spaced(HEARTBEAT_MS)), Effect.forkScoped)
    return ApprovalQueue.of({
      wait: (request) =>
        Effect.gen(function*() {
          const deferred = yield* Deferred.make<ApprovalAnswer>()
          const id = crypto.randomUUID()
          const time = yield* Clock.currentTimeMillis
          const pending: PendingApproval = { ...request, id, time }
          local.set(id, { pending, deferred })
          const params = [
            id,
            time,
            request.server,
            request.tool,
            request.principal ?? null,
            request.reason,
            request.rule ?? null,
            request.digest,
            JSON.stringify(request.args ?? null),
            replica,
            time + LEASE_MS
          ]
          return yield* db.run("queue an approval", db.sql.unsafe(INSERT, params)).pipe(
            Effect.andThen(Deferred.await(deferred)),
            Effect.ensuring(Effect.suspend(() => {
              local.delete(id)
              return Effect.ignore(db.run("remove an approval", db.sql.unsafe(REMOVE, [id])))
            }))
          )
        }),
      list: () => [...local.values()].map((entry) => entry.pending),
      listAll: Effect.flatMap(
        Clock.currentTimeMillis,
        (now) =>
          Effect.map(db.run("list pending approvals", db.sql.unsafe<Row>(LIST, [now])), (rows) => rows.map(toPending))
      ),
      answer: (id, answer, digest) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const rows = yield* db.run(
            "answer an approval",
            db.sql.unsafe(ANSWER, [id, JSON.stringify(answer), digest ?? null, now])
          )
          if (rows.length !== 1) return false
          // This replica's own entry needs no round trip.
          yield* settle(id, answer)
          return true
        })
    })
  })

/** The shared queue as a Layer over an open state database. */
export const layer = (db: StateDatabase): Layer.Layer<ApprovalQueue> => Layer.effect(ApprovalQueue, make(db))
