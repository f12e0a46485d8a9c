/**
 * The 2026-07-28 cache hints (`ttlMs`, `cacheScope`) of a listing the gateway merges from several servers: kept no
 * longer than any part (the shortest ttl), shared across users only when every part is `public` and the gateway made
 * nothing per principal (policy or hooks filtering the list). A part with no hint (a 2025 server's, a failed server's)
 * counts as NO_CACHE: a merge only tightens.
 */
import type { Plan } from "../config/Plan.ts"

/** One result's cache hints; `private` is narrower than `public`. */
export interface CacheHint {
  readonly ttlMs: number
  readonly cacheScope: "public" | "private"
}

/** The revision's defaults for a result with no hint: stale at once, for the requester alone. */
export const NO_CACHE: CacheHint = { ttlMs: 0, cacheScope: "private" }

/** A server's hint as its result carried it, when it is a valid one (ttl a non-negative safe integer). */
export const cacheHintOf = (
  result: { readonly ttlMs?: unknown; readonly cacheScope?: unknown }
): CacheHint | undefined =>
  Number.isSafeInteger(result.ttlMs) && (result.ttlMs as number) >= 0 &&
    (result.cacheScope === "public" || result.cacheScope === "private")
    ? { ttlMs: result.ttlMs as number, cacheScope: result.cacheScope }
    : undefined

/** The hint of a listing merged from `parts` (none counts as NO_CACHE); `perPrincipal` keeps it private. */
export const mergeCacheHints = (parts: ReadonlyArray<CacheHint | undefined>, perPrincipal: boolean): CacheHint => {
  if (parts.length === 0) return NO_CACHE
  let ttlMs = Number.MAX_SAFE_INTEGER
  let shared = !perPrincipal
  for (const part of parts) {
    const hint = part ?? NO_CACHE
    ttlMs = Math.min(ttlMs, hint.ttlMs)
    shared = shared && hint.cacheScope === "public"
  }
  return { ttlMs, cacheScope: shared ? "public" : "private" }
}

/**
 * Whether a plan makes a host's tool listing depend on who asks: toolsListed hooks or interceptors, or a Cedar policy
 * that hides denied tools.
 */
export const listsPerPrincipal = (plan: Plan): boolean =>
  (plan.hooks.toolsListed?.length ?? 0) > 0 || plan.loaded.config.policy?.cedar !== undefined ||
  (plan.loaded.config.interceptors?.length ?? 0) > 0
