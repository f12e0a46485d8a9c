/**
 * The gateway's identity tokens (`auth.identity`): a short-lived JWT per request naming the principal (`sub`), its
 * roles and the request's digest, for the server's `aud`. The key is `credentials.identityKey` or a P-256 key made
 * at start; its public part is served at `/.well-known/jwks.json`. jose is loaded only by a gateway that signs.
 */
import type { Principal } from "@interlock/core"
import { Clock, Effect, Redacted } from "effect"
import type { JWK } from "jose"
import { createPrivateKey, createPublicKey, type KeyObject, randomUUID, type webcrypto } from "node:crypto"
import { CredentialError } from "./CredentialError.ts"

/** What one identity token says. */
export interface IdentityClaims {
  readonly serverId: string
  readonly principal: Principal
  readonly digest: string | undefined
  readonly audience: string
  readonly ttlSeconds: number
}

/** Signs identity tokens with one key, and publishes its public part. */
export interface IdentitySigner {
  /** The key set a server verifies identity tokens with. */
  readonly jwks: { readonly keys: ReadonlyArray<JWK> }
  /** An identity token from `issuer` (the gateway's public origin). */
  readonly sign: (issuer: string, claims: IdentityClaims) => Effect.Effect<string, CredentialError>
}

/** The JWS algorithm of a configured key (checked when the plan was made: EC P-256, RSA or Ed25519). */
const algorithmOf = (key: KeyObject): string =>
  key.asymmetricKeyType === "rsa" ? "RS256" : key.asymmetricKeyType === "ed25519" ? "EdDSA" : "ES256"

/** A signer over `pem` (a PKCS #8 private key), or over a P-256 key generated now. */
export const makeIdentitySigner = (pem: Redacted.Redacted<string> | undefined): Effect.Effect<IdentitySigner> =>
  Effect.promise(async () => {
    const jose = await import("jose")
    const { alg, privateKey, publicJwk } = pem === undefined
      ? await jose.generateKeyPair("ES256").then(async (pair) => ({
        alg: "ES256",
        privateKey: pair.privateKey as webcrypto.CryptoKey | KeyObject,
        publicJwk: await jose.exportJWK(pair.publicKey)
      }))
      : await (async () => {
        const key = createPrivateKey({ key: Redacted.value(pem), format: "pem" })
        return {
          alg: algorithmOf(key),
          privateKey: key as webcrypto.CryptoKey | KeyObject,
          publicJwk: await jose.exportJWK(createPublicKey(key))
        }
      })()
    const kid = await jose.calculateJwkThumbprint(publicJwk)
    const published: JWK = { ...publicJwk, kid, alg, use: "sig" }
    return {
      jwks: { keys: [published] },
      sign: (issuer, claims) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.tryPromise({
            try: () => {
              const issuedAt = Math.floor(now / 1000)
              return new jose.SignJWT({
                roles: [...(claims.principal.roles ?? [])],
                server: claims.serverId,
                ...(claims.digest === undefined ? {} : { digest: claims.digest })
              })
                .setProtectedHeader({ alg, kid, typ: "JWT" })
                .setIssuer(issuer)
                .setSubject(claims.principal.id)
                .setAudience(claims.audience)
                .setIssuedAt(issuedAt)
                .setExpirationTime(issuedAt + claims.ttlSeconds)
                .setJti(randomUUID())
                .sign(privateKey)
            },
            catch: () =>
              new CredentialError({
                serverId: claims.serverId,
                reason: "identity",
                detail: "the identity token could not be signed"
              })
          }))
    }
  })
