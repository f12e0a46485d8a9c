/**
 * A token-bucket rate limit per principal and tool, as a preToolCall guard. Time comes from
 * Effect's Clock, so tests drive it with TestClock.
 */
import { canonicalName, type HookContext, type PreToolCallHook, type ToolCall, Verdict } from "@interlock/core"
import { Clock, Effect } from "effect"
import type { RateLimitConfig } from "./Config.ts"

interface Bucket {
  tokens: number
  at: number
}

const MAX_BUCKETS = 100_000

/** A guard hook that denies a call when its principal has used up its budget for the tool. */
export const rateLimitHook = (limit: RateLimitConfig): PreToolCallHook => {
  const perMs = limit.perMinute / 60_000
  const capacity = limit.burst ?? Math.max(1, Math.ceil(limit.perMinute))
  const buckets = new Map<string, Bucket>()
  return (call: ToolCall, ctx: HookContext) =>
    Effect.map(Clock.currentTimeMillis, (now) => {
      const key = `${ctx.principal?.id ?? ""}\u0000${canonicalName(call.serverId)}\u0000${canonicalName(call.name)}`
      let bucket = buckets.get(key)
      if (bucket === undefined) {
        if (buckets.size >= MAX_BUCKETS) buckets.clear()
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
