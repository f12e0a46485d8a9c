/**
 * The shared state of several replicas on one Postgres database (StateDatabase's pool): rate limits
 * (effect/persistence's RateLimiter over PgRateLimiterStore), pending console approvals (PgApprovalQueue), tool
 * pins (PgToolPins) and used approval states (PgUsedStates). A reaper prunes, every REAP_MS, what has expired:
 * refilled buckets, approvals whose lease ran out, marks of expired states.
 */
import type { SharedPins } from "@interlock/mcp"
import { Clock, Effect, Layer, type Redacted, Schedule } from "effect"
import * as RateLimiter from "effect/persistence/RateLimiter"
import type { ApprovalQueue } from "./ApprovalQueue.ts"
import * as PgApprovalQueue from "./PgApprovalQueue.ts"
import * as PgRateLimiterStore from "./PgRateLimiterStore.ts"
import * as PgToolPins from "./PgToolPins.ts"
import * as PgUsedStates from "./PgUsedStates.ts"
import { open, type StateDatabase } from "./StateDatabase.ts"
import type { StateError } from "./StateError.ts"
import type { UsedStates } from "./UsedStates.ts"

/** How often expired shared state is pruned. */
export const REAP_MS = 60_000

const PRUNE = [PgRateLimiterStore.PRUNE_BUCKETS, PgApprovalQueue.PRUNE_APPROVALS, PgUsedStates.PRUNE_USED_STATES]

/** Deletes every expired row of the shared state, as of `now`. */
export const prune = (db: StateDatabase, now: number): Effect.Effect<void, StateError> =>
  db.run(
    "prune expired state",
    Effect.forEach(PRUNE, (statement) => db.sql.unsafe(statement, [now]), { discard: true })
  )

/** The services of the shared state over an open database. */
export const services = (
  db: StateDatabase
): Layer.Layer<ApprovalQueue | UsedStates | SharedPins | RateLimiter.RateLimiter> =>
  Layer.mergeAll(
    PgApprovalQueue.layer(db),
    PgUsedStates.layer(db),
    PgToolPins.layer(db),
    RateLimiter.layer.pipe(Layer.provide(PgRateLimiterStore.layer(db)))
  )

/**
 * Opens the database at `url`, with the shared state's services and its reaper; the pool closes with the Layer's scope.
 */
export const layer = (
  url: Redacted.Redacted<string>
): Layer.Layer<ApprovalQueue | UsedStates | SharedPins | RateLimiter.RateLimiter, StateError> =>
  Layer.unwrap(Effect.gen(function*() {
    const db = yield* open(url)
    yield* Clock.currentTimeMillis.pipe(
      Effect.flatMap((now) => prune(db, now)),
      Effect.ignore,
      Effect.repeat(Schedule.spaced(REAP_MS)),
      Effect.forkScoped
    )
    return services(db)
  }))
