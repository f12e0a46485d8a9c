/**
 * The authorization server's signing keys (its JWKS), cached and rotated. The key set's URL is the configured one, or
 * the `jwks_uri` of the issuer's metadata (`metadataUrls`; it must name the same issuer). Keys are fetched on first use
 * and again once older than {@link MAX_AGE_MS}; a token signed with a key the set lacks (an unknown `kid`) triggers a
 * bounded refetch (`refetchAllowed`). Concurrent requests share one fetch. Times come from Effect's Clock.
 */
import { Clock, Effect, Schema, Semaphore } from "effect"
import { createLocalJWKSet, type JWK } from "jose"
import { KeysUnavailable } from "./TokenRefused.ts"

/** A key set older than this is fetched again on its next use (keys found stale are still used if the fetch fails). */
export const MAX_AGE_MS = 10 * 60_000

/** Refetches an unknown key may trigger within {@link REFETCH_WINDOW_MS}. */
export const UNKNOWN_KEY_REFETCHES = 3

/** The window of {@link UNKNOWN_KEY_REFETCHES}. */
export const REFETCH_WINDOW_MS = 60_000

/** The least time between two fetches for a missing or stale set after a failure. */
export const RETRY_MS = 10_000

/** How long one metadata or key set request may take. */
export const FETCH_TIMEOUT_MS = 5_000

/** The largest metadata document or key set read. */
export const MAX_DOCUMENT_BYTES = 1_048_576

/** Where the keys come from. */
export interface KeySource {
  readonly issuer: string
  /** The key set's URL; undefined: the issuer's metadata names it. */
  readonly jwksUri: string | undefined
}

/** One fetched key set: a jose key resolver, and its generation (which grows with every fetch). */
export interface Keys {
  readonly generation: number
  readonly resolve: ReturnType<typeof createLocalJWKSet>
}

/** The cache's interface. */
export interface KeySetShape {
  /** The keys: fetched on first use, and again once stale. */
  readonly current: Effect.Effect<Keys, KeysUnavailable>
  /** Newer keys than `seen`, for a token whose key `seen` lacks; undefined when the refetch budget is spent. */
  readonly refreshFor: (seen: Keys) => Effect.Effect<Keys | undefined, KeysUnavailable>
}

/**
 * Whether one more unknown-key refetch fits the budget, given when the earlier ones were: at most
 * {@link UNKNOWN_KEY_REFETCHES} in any {@link REFETCH_WINDOW_MS}, so a flood of made-up kids cannot make the gateway
 * hammer the issuer. It never blocks the age-based refresh, which picks up a rotation whatever an attacker sends.
 */
export const refetchAllowed = (earlier: ReadonlyArray<number>, now: number): boolean =>
  earlier.filter((at) => now - at < REFETCH_WINDOW_MS).length < UNKNOWN_KEY_REFETCHES

const Metadata = Schema.Struct({ issuer: Schema.String, jwks_uri: Schema.String })
const KeySetDocument = Schema.Struct({ keys: Schema.Array(Schema.Record(Schema.String, Schema.Unknown)) })

/**
 * The metadata URLs of an issuer, in the order tried: RFC 8414 (path inserted), then OpenID Connect (path appended).
 */
export const metadataUrls = (issuer: string): ReadonlyArray<string> => {
  const url = new URL(issuer)
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "")
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`
  ]
}

/** GETs a JSON document, within {@link FETCH_TIMEOUT_MS} and {@link MAX_DOCUMENT_BYTES}; `what` names it in errors. */
const fetchJson = (url: string, what: string): Effect.Effect<unknown, KeysUnavailable> =>
  Effect.tryPromise({
    try: async (signal) => {
      const response = await fetch(url, { signal, headers: { accept: "application/json" } })
      if (!response.ok) throw new KeysUnavailable({ detail: `${what} HTTP ${response.status}` })
      const text = await response.text()
      if (text.length > MAX_DOCUMENT_BYTES) throw new KeysUnavailable({ detail: `${what} too large` })
      return JSON.parse(text) as unknown
    },
    catch: (error) => error instanceof KeysUnavailable ? error : new KeysUnavailable({ detail: `${what} unreadable` })
  }).pipe(Effect.timeoutOrElse({
    duration: FETCH_TIMEOUT_MS,
    orElse: () => Effect.fail(new KeysUnavailable({ detail: `${what} timeout` }))
  }))

const decode = <S extends Schema.Decoder<unknown>>(schema: S, what: string) => (value: unknown) =>
  Schema.decodeUnknownEffect(schema)(value).pipe(
    Effect.mapError(() => new KeysUnavailable({ detail: `${what} malformed` }))
  )

/** The key set's URL from the issuer's metadata: the first document that loads, which must name this issuer. */
const discoverJwksUri = (issuer: string): Effect.Effect<string, KeysUnavailable> =>
  Effect.firstSuccessOf(
    metadataUrls(issuer).map((url) => fetchJson(url, "metadata").pipe(Effect.flatMap(decode(Metadata, "metadata"))))
  ).pipe(
    Effect.flatMap((metadata) =>
      metadata.issuer === issuer
        ? Effect.succeed(metadata.jwks_uri)
        : Effect.fail(new KeysUnavailable({ detail: "metadata names another issuer" }))
    )
  )

/** A key set cache for `source`. */
export const makeKeySet = (source: KeySource): Effect.Effect<KeySetShape> =>
  Effect.sync(() => {
    const lock = Semaphore.makeUnsafe(1)
    let jwksUri = source.jwksUri
    let held: { readonly keys: Keys; readonly fetchedAt: number } | undefined
    let lastFailure: number | undefined
    const refetches: Array<number> = []

    const load = Effect.gen(function*() {
      const uri = jwksUri ?? (yield* discoverJwksUri(source.issuer))
      jwksUri = uri
      const document = yield* fetchJson(uri, "key set").pipe(Effect.flatMap(decode(KeySetDocument, "key set")))
      const resolve = yield* Effect.try({
        // Each key's fields are jose's to check: it refuses a malformed set here and a malformed key when it is used.
        try: () => createLocalJWKSet({ keys: document.keys.map((key) => key as JWK) }),
        catch: () => new KeysUnavailable({ detail: "key set malformed" })
      })
      const keys: Keys = { generation: (held?.keys.generation ?? 0) + 1, resolve }
      held = { keys, fetchedAt: yield* Clock.currentTimeMillis }
      return keys
    })

    // A fetch for a missing or stale set: after a failure, not again within RETRY_MS (stale keys serve meanwhile).
    const scheduled = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      if (held !== undefined && now - held.fetchedAt < MAX_AGE_MS) return held.keys
      if (lastFailure !== undefined && now - lastFailure < RETRY_MS) {
        return held === undefined ? yield* new KeysUnavailable({ detail: "key set fetch failed recently" }) : held.keys
      }
      return yield* load.pipe(
        Effect.tap(() => Effect.sync(() => (lastFailure = undefined))),
        Effect.catch((error) =>
          Effect.andThen(
            Effect.sync(() => (lastFailure = now)),
            held === undefined ? Effect.fail(error) : Effect.succeed(held.keys)
          )
        )
      )
    })

    const locked = lock.withPermits(1)(scheduled)
    // The common case takes no lock: keys held and young.
    const current = Effect.suspend(() => {
      const fresh = held
      if (fresh === undefined) return locked
      return Effect.flatMap(Clock.currentTimeMillis, (now) =>
        now - fresh.fetchedAt < MAX_AGE_MS ? Effect.succeed(fresh.keys) : locked)
    })

    const refreshFor = (seen: Keys) =>
      lock.withPermits(1)(Effect.gen(function*() {
        // Another request fetched while this one waited: those keys are newer than the ones it saw.
        if (held !== undefined && held.keys.generation > seen.generation) {
          return held.keys
        }
        const now = yield* Clock.currentTimeMillis
        if (!refetchAllowed(refetches, now)) {
          return undefined
        }
        refetches.push(now)
        while (refetches.length > UNKNOWN_KEY_REFETCHES) {
          refetches.shift()
        }
        return yield* load
      }))

    return { current, refreshFor }
  })
