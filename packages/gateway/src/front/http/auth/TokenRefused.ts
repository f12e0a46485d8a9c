/**
 * Why an OAuth access token was not taken, as typed errors. They name the check that failed and
 * never the token or any of its claims (both may be secrets or personal data).
 */
import { Schema } from "effect"

/**
 * The checks a token can fail; `scope` is the only one answered 403 (insufficient_scope), the rest 401 (invalid_token).
 */
export const RefusalReason = Schema.Literals([
  "malformed",
  "algorithm",
  "signature",
  "unknown-key",
  "expired",
  "not-yet-valid",
  "issuer",
  "audience",
  "claims",
  "scope"
])

/** A check a token failed. */
export type RefusalReason = typeof RefusalReason.Type

/** An access token was refused. */
export class TokenRefused extends Schema.TaggedError<TokenRefused>()("TokenRefused", {
  reason: RefusalReason
}) {
  override get message(): string {
    return `the access token was refused: ${DESCRIPTIONS[this.reason]}`
  }
}

/** The fixed text a client is told for each refusal (RFC 6750 `error_description`). */
export const DESCRIPTIONS: Readonly<Record<RefusalReason, string>> = {
  malformed: "the token is not a signed JWT",
  algorithm: "the token's signing algorithm is not accepted",
  signature: "the token's signature does not verify",
  "unknown-key": "the token is signed with a key the authorization server does not publish",
  expired: "the token has expired",
  "not-yet-valid": "the token is not valid yet",
  issuer: "the token is from another issuer",
  audience: "the token is for another audience",
  claims: "the token lacks a required claim or has one of the wrong type",
  scope: "the token lacks a required scope"
}

/** The authorization server's keys could not be had (its metadata or key set did not load); no token can be checked. */
export class KeysUnavailable extends Schema.TaggedError<KeysUnavailable>()("KeysUnavailable", {
  /** What failed, without any response body: "metadata HTTP 500", "key set timeout", ... */
  detail: Schema.String
}) {
  override get message(): string {
    return `the authorization server's keys are unavailable: ${this.detail}`
  }
}
