/**
 * The access tokens already verified, so that a host's every request need not pay for a signature check: a hit gives
 * the principal the full check gave, while the token is within its `exp` (plus skew) and at most
 * {@link VERIFIED_TTL_MS} after its check. Only tokens that passed are kept, so bad tokens cannot fill it; it is
 * bounded by bytes, least recently used out first.
 */
import { BoundedCache } from "@interlock/core"
import { Clock, Effect } from "effect"
import type { VerifiedToken } from "./AccessToken.ts"

/**
 * The longest a verified token is taken without a new check: a key withdrawn from the issuer's key set stops counting
 * within it.
 */
export const VERIFIED_TTL_MS = 60_000

/** The most the cache holds, by estimated bytes. */
export const VERIFIED_MAX_BYTES = 8 * 1024 * 1024

/** `verify` behind a cache of its successes. */
export const cachedVerify = <E>(
  verify: (token: string) => Effect.Effect<VerifiedToken, E>
): (token: string) => Effect.Effect<VerifiedToken, E> => {
  const verified = BoundedCache.makeBoundedCache<VerifiedToken>({
    maxBytes: VERIFIED_MAX_BYTES,
    costOf: () => 256,
    evict: "leastRecent"
  })
  return (token) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const hit = verified.get(token)
      if (hit !== undefined && now < hit.validUntilMs) return Effect.succeed(hit)
      return Effect.tap(verify(token), (fresh) =>
        Effect.sync(() =>
          verified.set(token, {
            principal: fresh.principal,
            validUntilMs: Math.min(fresh.validUntilMs, now + VERIFIED_TTL_MS)
          })
        ))
    })
}
