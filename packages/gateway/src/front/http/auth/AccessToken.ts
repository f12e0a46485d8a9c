/**
 * One OAuth access token checked (jose): a JWS compact JWT signed with one of the {@link ALGORITHMS} by a key of the
 * issuer's key set, from the configured issuer, for the configured audience, within its `exp`/`nbf` (a
 * {@link CLOCK_SKEW_SECONDS} skew) on Effect's Clock; then its principal, roles and scopes from its claims. A kid the
 * cached keys lack triggers one bounded refetch (KeySet.ts).
 */
import { Principal } from "@interlock/core"
import { Clock, Effect, Result } from "effect"
import { decodeProtectedHeader, jwtVerify } from "jose"
import type { Keys, KeySetShape } from "./KeySet.ts"
import { type Claims, missingScopes, principalOf, rolesOf, scopesOf } from "./TokenClaims.ts"
import type { KeysUnavailable } from "./TokenRefused.ts"
import { type RefusalReason, TokenRefused } from "./TokenRefused.ts"

/**
 * The signing algorithms accepted: asymmetric ones only (never `none`, never HS*: a public key is never taken for an
 * HMAC secret).
 */
export const ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519"
] as const

/** The clock skew allowed on `exp` and `nbf`. */
export const CLOCK_SKEW_SECONDS = 30

/** A token that passed: its principal, and until when (epoch ms, the skew included) it stays valid. */
export interface VerifiedToken {
  readonly principal: Principal
  readonly validUntilMs: number
}

/** What a token must satisfy. */
export interface TokenRules {
  readonly issuer: string
  readonly audience: string
  readonly principalClaim: string
  readonly rolesClaim: string | undefined
  readonly requiredScopes: ReadonlyArray<string>
}

const allowed: ReadonlySet<string> = new Set(ALGORITHMS)

/** The refusal for what jose threw; anything it does not name is a malformed token. */
export const reasonOf = (error: unknown): RefusalReason => {
  const { code, claim } = (typeof error === "object" && error !== null ? error : {}) as {
    code?: unknown
    claim?: unknown
  }
  switch (code) {
    case "ERR_JOSE_ALG_NOT_ALLOWED":
      return "algorithm"
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
    case "ERR_JWKS_MULTIPLE_MATCHING_KEYS":
      return "signature"
    case "ERR_JWKS_NO_MATCHING_KEY":
      return "unknown-key"
    case "ERR_JWT_EXPIRED":
      return "expired"
    case "ERR_JWT_CLAIM_VALIDATION_FAILED":
      return claim === "nbf" ? "not-yet-valid" : claim === "iss" ? "issuer" : claim === "aud" ? "audience" : "claims"
    default:
      return "malformed"
  }
}

// The header's algorithm, read before any key is looked up: the allow-list decides first.
const headerAlgorithm = (token: string): string | undefined => {
  try {
    const alg = decodeProtectedHeader(token).alg
    return typeof alg === "string" ? alg : undefined
  } catch {
    return undefined
  }
}

/** The principal a verified token's claims name, with its roles; or why they do not. */
export const principalFromClaims = (claims: Claims, rules: TokenRules): Principal | TokenRefused => {
  const id = principalOf(claims, rules.principalClaim)
  const roles = rolesOf(claims, rules.rolesClaim)
  const scopes = scopesOf(claims)
  if (id === undefined || roles === undefined || scopes === undefined) return new TokenRefused({ reason: "claims" })
  if (missingScopes(scopes, rules.requiredScopes).length > 0) return new TokenRefused({ reason: "scope" })
  return new Principal({ id, ...(rules.rolesClaim === undefined ? {} : { roles }) })
}

/** Checks `token` against `rules` with the keys of `keySet`. */
export const verifyAccessToken = (
  token: string,
  rules: TokenRules,
  keySet: KeySetShape
): Effect.Effect<VerifiedToken, TokenRefused | KeysUnavailable> =>
  Effect.gen(function*() {
    const alg = headerAlgorithm(token)
    if (alg === undefined) return yield* new TokenRefused({ reason: "malformed" })
    if (!allowed.has(alg)) return yield* new TokenRefused({ reason: "algorithm" })
    const attempt = (keys: Keys) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.result(Effect.tryPromise({
          try: () =>
            jwtVerify(token, keys.resolve, {
              issuer: rules.issuer,
              audience: rules.audience,
              algorithms: [...ALGORITHMS],
              clockTolerance: CLOCK_SKEW_SECONDS,
              currentDate: new Date(now),
              requiredClaims: ["exp"]
            }),
          catch: reasonOf
        })))
    const keys = yield* keySet.current
    let verified = yield* attempt(keys)
    if (Result.isFailure(verified) && verified.failure === "unknown-key") {
      const newer = yield* keySet.refreshFor(keys)
      if (newer !== undefined) verified = yield* attempt(newer)
    }
    if (Result.isFailure(verified)) return yield* new TokenRefused({ reason: verified.failure })
    const payload: Claims = verified.success.payload
    const principal = principalFromClaims(payload, rules)
    if (principal instanceof TokenRefused) return yield* principal
    // jose required `exp` and checked it is a number.
    return { principal, validUntilMs: (Number(payload.exp) + CLOCK_SKEW_SECONDS) * 1000 }
  })
