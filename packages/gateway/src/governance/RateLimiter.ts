/**
 * A token-bucket rate limit per principal and tool, as a preToolCall guard on Effect's Clock. In memory the
 * buckets are bounded by bytes (MAX_BUCKET_BYTES; the least recently used goes first), which effect/persistence's
 * in-memory store is not: it keeps every key's bucket for ever. With a shared state database, effect/persistence's
 * RateLimiter over PgRateLimiterStore takes the same bucket for all replicas; a failing store refuses the call.
 */
import {
  BoundedCache,
  canonicalName,
  type HookContext,
  type PreToolCallHook,
  type ToolCall,
  Verdict
} from "@interlock/core"
import { Clock, Effect, Option } from "effect"
import { RateLimiter } from "effect/persistence/RateLimiter"
import type { RateLimitConfig } from "../config/Config.ts"
import { StateError } from "../state/StateError.ts"

interface Bucket {
  tokens: number
  at: number
}

/** The most bytes (estimated) the buckets of one rate limit hold: tens of thousands of keys of 128-character names. */
export const MAX_BUCKET_BYTES = 32 * 1024 * 1024

/** The estimated bytes of one bucket beside its key. */
const BUCKET_BYTES = 48

/** A guard hook that denies a call when its principal has used up its budget for the tool. */
export const rateLimitHook = (limit: RateLimitConfig, maxBytes: number = MAX_BUCKET_BYTES): PreToolCallHook => {
  const perMs = limit.perMinute / 60_000
  const capacity = limit.burst ?? Math.max(1, Math.ceil(limit.perMinute))
  const buckets = BoundedCache.makeBoundedCache<Bucket>({ maxBytes, costOf: () => BUCKET_BYTES, evict: "leastRecent" })
  const denied = Verdict.deny(`rate limit exceeded: at most ${limit.perMinute} calls per minute`)
  // The in-memory bucket of `key`, refilled to `now`, takes one token if it has one.
  const take = (key: string, now: number) => {
    let bucket = buckets.get(key)
    if (bucket === undefined) {
      bucket = { tokens: capacity, at: now }
      buckets.set(key, bucket)
    }
    bucket.tokens = Math.min(capacity, bucket.tokens + (now - bucket.at) * perMs)
    bucket.at = now
    if (bucket.tokens < 1) return denied
    bucket.tokens -= 1
    return Verdict.continue
  }
  // effect/persistence's token bucket is this one: capacity `limit`, one token per `window / limit`.
  const shared = { algorithm: "token-bucket", onExceeded: "fail", limit: capacity, window: capacity / perMs } as const
  const storeFailed = new StateError({ operation: "rate limit", detail: "the shared rate-limit store failed" })
  return (call: ToolCall, ctx: HookContext) => {
    const key = `${ctx.principal?.id ?? ""}\u0000${canonicalName(call.serverId)}\u0000${canonicalName(call.name)}`
    return Effect.flatMap(Effect.serviceOption(RateLimiter), (limiter) =>
      Option.isNone(limiter)
        ? Effect.map(Clock.currentTimeMillis, (now) => take(key, now))
        : limiter.value.consume({ ...shared, key }).pipe(
          Effect.as(Verdict.continue),
          Effect.catch((error) =>
            error.reason._tag === "RateLimitExceeded" ? Effect.succeed(denied) : Effect.fail(storeFailed)
          )
        ))
  }
}
