/**
 * Sealed states that travel through a host and come back (the `requestState` of a 2026-07-28 multi-round-trip
 * request): an encrypted JWT (JWE `dir` + `A256GCM`, by `jose`) that a host can neither read nor change. It names
 * its purpose (refused for another), carries a unique id (single use: UsedStates) and an expiry on Effect's Clock;
 * the key is derived from a configured secret, or made at start.
 */
import { Clock, Context, Effect, Layer, Redacted, Schema } from "effect"
import { EncryptJWT, jwtDecrypt } from "jose"
import { hkdfSync, randomBytes } from "node:crypto"

/** Why a sealed state was refused; never says more about its contents. */
export class SealRefused extends Schema.TaggedError<SealRefused>()("SealRefused", {
  reason: Schema.Literals(["malformed", "expired", "purpose"])
}) {
  override get message(): string {
    return `the request state was refused (${this.reason})`
  }
}

/** An opened state: its id, its expiry (epoch ms) and the payload it was sealed with. */
export interface OpenedState {
  readonly id: string
  readonly expiresAtMs: number
  readonly payload: Readonly<Record<string, unknown>>
}

/** The service interface. */
export interface StateSealShape {
  /** Seals `payload` for `purpose`, valid for `ttlMs` from now. */
  readonly seal: (purpose: string, payload: Readonly<Record<string, unknown>>, ttlMs: number) => Effect.Effect<string>
  /** Opens a state sealed for `purpose`; refused when it was changed, is expired or was sealed for another purpose. */
  readonly open: (purpose: string, state: string) => Effect.Effect<OpenedState, SealRefused>
}

const ISSUER = "interlock-gateway"
const RESERVED = new Set(["iss", "aud", "exp", "jti", "iat", "nbf", "sub"])

/** The 32-byte content key for a configured secret (HKDF-SHA256, so any long secret serves). */
export const sealKey = (secret: string): Uint8Array =>
  new Uint8Array(hkdfSync("sha256", secret, "interlock", "interlock request state v1", 32))

const make = (key: Uint8Array): StateSealShape => ({
  seal: (purpose, payload, ttlMs) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.promise(() =>
        new EncryptJWT({ p: payload })
          .setProtectedHeader({ alg: "dir", enc: "A256GCM" })
          .setIssuer(ISSUER)
          .setAudience(purpose)
          .setJti(crypto.randomUUID())
          .setIssuedAt(Math.floor(now / 1000))
          .setExpirationTime(Math.floor((now + ttlMs) / 1000))
          .encrypt(key)
      )),
  open: (purpose, state) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.tryPromise({
        try: () =>
          jwtDecrypt(state, key, {
            issuer: ISSUER,
            keyManagementAlgorithms: ["dir"],
            contentEncryptionAlgorithms: ["A256GCM"],
            currentDate: new Date(now),
            requiredClaims: ["jti", "exp", "aud"]
          }),
        catch: (error) => {
          const code = (error as { readonly code?: unknown }).code
          if (code === "ERR_JWT_EXPIRED") return new SealRefused({ reason: "expired" })
          if (code === "ERR_JWT_CLAIM_VALIDATION_FAILED" && (error as { readonly claim?: unknown }).claim === "aud") {
            return new SealRefused({ reason: "purpose" })
          }
          return new SealRefused({ reason: "malformed" })
        }
      }).pipe(
        Effect.flatMap(({ payload }) => {
          if (payload.aud !== purpose) return Effect.fail(new SealRefused({ reason: "purpose" }))
          const inner = payload.p
          if (
            typeof payload.jti !== "string" || typeof payload.exp !== "number" || typeof inner !== "object" ||
            inner === null || Array.isArray(inner)
          ) {
            return Effect.fail(new SealRefused({ reason: "malformed" }))
          }
          const fields = Object.fromEntries(Object.entries(inner).filter(([name]) => !RESERVED.has(name)))
          return Effect.succeed({ id: payload.jti, expiresAtMs: payload.exp * 1000, payload: fields })
        })
      ))
})

/** Seals and opens the states of one gateway. */
export class StateSeal extends Context.Service<StateSeal, StateSealShape>()("@interlock/gateway/StateSeal") {
  /** A seal keyed by a configured secret; every replica given the same secret opens the others' states. */
  static readonly fromSecret = (secret: Redacted.Redacted<string>): Layer.Layer<StateSeal> =>
    Layer.succeed(StateSeal, make(sealKey(Redacted.value(secret))))
  /** A seal with a key generated now: states survive neither a restart nor a trip to another replica. */
  static readonly generated: Layer.Layer<StateSeal> = Layer.sync(StateSeal, () => make(new Uint8Array(randomBytes(32))))
}
