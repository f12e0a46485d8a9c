/**
 * Issued tokens, kept until near their expiry (effect's Cache): concurrent requests for one key
 * share one token request, a failure is not kept (the next request asks again), and a token is
 * replaced a {@link refreshMarginMs} before it expires. Bounded, least recently used out first.
 */
import { Cache, type Effect, Exit } from "effect"
import type { CredentialError } from "./CredentialError.ts"
import type { IssuedToken } from "./TokenEndpoint.ts"

/** How long before its expiry a token is replaced: a quarter of its lifetime, at most 30 s. */
export const refreshMarginMs = (lifetimeMs: number): number => Math.min(30_000, lifetimeMs / 4)

/** The most tokens one cache keeps. */
export const TOKEN_CACHE_CAPACITY = 10_000

/** A cache of issued tokens by `Key` (a string, or a value with effect's Equal and Hash). */
export type TokenCache<Key> = Cache.Cache<Key, IssuedToken, CredentialError>

/** A token cache over `lookup`, which asks the token endpoint. */
export const makeTokenCache = <Key>(
  lookup: (key: Key) => Effect.Effect<IssuedToken, CredentialError>
): Effect.Effect<TokenCache<Key>> =>
  Cache.makeWith(lookup, {
    capacity: TOKEN_CACHE_CAPACITY,
    timeToLive: (exit) =>
      Exit.isSuccess(exit) ? Math.max(0, exit.value.lifetimeMs - refreshMarginMs(exit.value.lifetimeMs)) : 0
  })

/** The token for `key`, asked for when none is kept or the kept one is near its expiry. */
export const tokenFor = <Key>(cache: TokenCache<Key>, key: Key): Effect.Effect<IssuedToken, CredentialError> =>
  Cache.get(cache, key)
