/**
 * A request whose downstream credential could not be had: the principal has none for the server,
 * or the authorization server would not mint one. The request is refused (fail closed): nothing
 * is sent. The error names the server and the reason in Interlock's words (an HTTP status or an
 * OAuth error code at most), never a token or a secret.
 */
import { Receipt } from "@interlock/core"
import { Schema } from "effect"

/** Why the credential could not be had. */
export const CredentialReason = Schema.Literals([
  /** The request names no principal, and the server's credential is each principal's own. */
  "no-principal",
  /** The principal has no OAuth access token to exchange, and auth.perPrincipal names it not. */
  "no-access-token",
  /** auth.perPrincipal names neither the principal nor a role it holds. */
  "not-named",
  /** The token endpoint could not be reached, or refused the request. */
  "token-endpoint",
  /** The token endpoint's answer was not a usable bearer token. */
  "token-response",
  /** The identity token could not be signed. */
  "identity",
  /** The principal has no grant toward the server (auth.oauth): it connects at the error's link. */
  "not-connected"
])

/** Why the credential could not be had, as a type. */
export type CredentialReason = typeof CredentialReason.Type

/** The request was refused for want of a credential toward `serverId`; nothing was sent. */
export class CredentialError extends Schema.TaggedError<CredentialError>()("CredentialError", {
  serverId: Schema.String,
  reason: CredentialReason,
  /**
   * Interlock's words for the reason: never a token, a secret or what a server said beyond its status and error code.
   */
  detail: Schema.String,
  /**
   * Where the principal connects the server (auth.oauth): a sealed link for that principal alone, which the host is
   * shown and no log, audit row or span records.
   */
  connect: Schema.optional(Schema.String),
  receipt: Schema.optional(Receipt)
}) {
  override get message(): string {
    return `no credential for server ${this.serverId}: ${this.detail}; the request was not sent`
  }
}
