/**
 * A token-bucket rate limit per principal and tool, as a preToolCall guard. Time comes from
 * Effect's Clock, so tests drive it with TestClock. The buckets are bounded by bytes
 * (MAX_BUCKET_BYTES): past the bound the least recently used bucket is dropped, one at a time, so
 * the limits of active principals and tools are never reset by others' traffic.
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
