/**
 * effect/persistence's RateLimiterStore on the shared state database, so that a limit holds across all replicas
 * together. `tokenBucket` is one INSERT ... ON CONFLICT DO UPDATE, so Postgres locks the row and concurrent takes
 * never read-modify-write past each other; its arithmetic is the in-memory store's, operation for operation, on
 * the caller's Clock (replicas need synchronised clocks). Only token buckets.
 */
import { Clock, Duration, Effect, Layer } from "effect"
import { RateLimiterError, RateLimiterStore, RateLimitStoreError } from "effect/persistence/RateLimiter"
import { createHash } from "node:crypto"
import type { StateDatabase } from "./StateDatabase.ts"

// $1 key, $2 tokens, $3 now, $4 refill ms, $5 limit, $6 overflow, $7 expiry. `attempt` is the count
// after the take (negative when refused), `last_refill` the current interval's start.
const TOKEN_BUCKET = `
INSERT INTO interlock_rate_buckets AS b (key, tokens, last_refill, attempt, expires_at)
VALUES ($1, CASE WHEN $5::float8 - $2::float8 >= 0 OR $6::boolean THEN $5::float8 - $2::float8 ELSE $5::float8 END,
        $3::float8, $5::float8 - $2::float8, $7::float8)
ON CONFLICT (key) DO UPDATE SET (tokens, last_refill, attempt, expires_at) = (
  SELECT CASE WHEN s.cur - $2::float8 >= 0 OR $6::boolean THEN s.cur - $2::float8 ELSE s.cur END,
         CASE WHEN s.cur >= $5::float8 THEN $3::float8 ELSE s.last END,
         s.cur - $2::float8,
         $7::float8
  FROM (SELECT CASE WHEN a.n > 0 THEN LEAST($5::float8, b.tokens + a.n) ELSE b.tokens END AS cur,
               CASE WHEN a.n > 0 THEN b.last_refill + a.n * $4::float8 ELSE b.last_refill END AS last
        FROM (SELECT floor(($3::float8 - b.last_refill) / $4::float8) AS n) a) s)
RETURNING attempt, last_refill`

/** The statement that forgets the buckets that have refilled completely (an absent bucket is a full one). */
export const PRUNE_BUCKETS = "DELETE FROM interlock_rate_buckets WHERE expires_at <= $1"

/** The stored form of a bucket's key: its SHA-256 (a key holds a principal and a tool name of any length). */
export const bucketKey = (key: string): string => createHash("sha256").update(key).digest("base64url")

const storeError = (message: string) => new RateLimiterError({ reason: new RateLimitStoreError({ message }) })

const unsupported = (algorithm: string) =>
  Effect.fail(storeError(`the gateway's shared state keeps token buckets only, not ${algorithm}`))

/**
 * A RateLimiterStore on the state database; a failed statement is a RateLimitStoreError naming the driver's reason
 * only.
 */
export const make = (db: StateDatabase): typeof RateLimiterStore.Service =>
  RateLimiterStore.of({
    tokenBucket: (options) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const refill = Duration.toMillis(options.refillRate)
        // After limit intervals the bucket is full whatever it held: the row is then the same as none.
        const expires = now + options.limit * refill
        const params = [
          bucketKey(options.key),
          options.tokens,
          now,
          refill,
          options.limit,
          options.allowOverflow,
          expires
        ]
        return db.run(
          "rate limit",
          db.sql.unsafe<{ readonly attempt: number; readonly last_refill: number }>(TOKEN_BUCKET, params)
        ).pipe(
          Effect.mapError((error) => storeError(error.message)),
          Effect.map(([row]) => [Number(row.attempt), Math.max(0, now - Number(row.last_refill))] as const)
        )
      }),
    fixedWindow: () => unsupported("fixed windows"),
    adaptiveConsume: () => unsupported("adaptive limits"),
    adaptiveFeedback: () => unsupported("adaptive limits")
  })

/** The store as a Layer over an open state database. */
export const layer = (db: StateDatabase): Layer.Layer<RateLimiterStore> => Layer.succeed(RateLimiterStore, make(db))
