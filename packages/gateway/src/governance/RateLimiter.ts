/**
 * A token-bucket rate limit per principal and tool, as a preToolCall guard. Time comes from
 * Effect's Clock, so tests drive it with TestClock. The buckets are bounded by bytes
 * (MAX_BUCKET_BYTES): past the bound the least recently used bucket is dropped, one at a time, so
 * the limits of active principals and tools are never reset by others' traffic.
 *
 * Why not `effect/persistence`'s RateLimiter: its token bucket is ours (capacity `limit`, one token
 * per `window / limit`, so burst B at P per minute is limit B, window B * 60s / P; Clock-driven),
 * but its in-memory store (`layerStoreMemory`) keeps every key's bucket in a plain Map for ever: a
 * flood of distinct principals or tool names grows the heap without bound, which is the attack
 * test/security/rate-limit-buckets.test.ts guards against (and shows: a key of the flood's start is
 * still remembered there, long after ours dropped it). A bounded store would be a RateLimiterStore
 * of our own, the same bucket arithmetic behind four methods of which we use one. When the limits
 * move to a shared store (the production issue), that store is a RateLimiterStore (Postgres keys
 * expire in the database) and the service is worth taking then; in memory, this is smaller.
 */
import { canonicalName, type HookContext, type PreToolCallHook, type ToolCall, Verdict } from "@interlock/core"
import { Clock, Effect } from "effect"
import { byteBoundedMap, keyBytes } from "../front/http/ByteBoundedMap.ts"
import type { RateLimitConfig } from "../config/Config.ts"

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
  const buckets = byteBoundedMap<Bucket>(maxBytes, (key) => keyBytes(key) + BUCKET_BYTES)
  return (call: ToolCall, ctx: HookContext) =>
    Effect.map(Clock.currentTimeMillis, (now) => {
      const key = `${ctx.principal?.id ?? ""}\u0000${canonicalName(call.serverId)}\u0000${canonicalName(call.name)}`
      let bucket = buckets.get(key)
      if (bucket === undefined) {
        bucket = { tokens: capacity, at: now }
        buckets.set(key, bucket)
      }
      bucket.tokens = Math.min(capacity, bucket.tokens + (now - bucket.at) * perMs)
      bucket.at = now
      if (bucket.tokens < 1) return Verdict.deny(`rate limit exceeded: at most ${limit.perMinute} calls per minute`)
      bucket.tokens -= 1
      return Verdict.continue
    })
}
