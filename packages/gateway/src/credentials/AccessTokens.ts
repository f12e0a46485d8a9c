/**
 * The OAuth access token each principal was verified from (listen.oauth): the HTTP guard binds a
 * principal it verified to its token, and a token exchange reads it as the subject token. Only
 * principals of verified tokens are bound, so a static-token principal has none. Held by the
 * principal object itself (a WeakMap), so no lookup by name can give one principal another's.
 */
import type { Principal } from "@interlock/core"
import { Redacted } from "effect"

const tokens = new WeakMap<Principal, Redacted.Redacted<string>>()

/**
 * Binds `principal` to the verified access token it came from (replacing an earlier one, for a host's refreshed token).
 */
export const bindAccessToken = (principal: Principal, token: string | Redacted.Redacted<string>): void => {
  tokens.set(principal, Redacted.isRedacted(token) ? token : Redacted.make(token))
}

/** The verified access token `principal` came from, if it came from one. */
export const accessTokenOf = (principal: Principal | undefined): Redacted.Redacted<string> | undefined =>
  principal === undefined ? undefined : tokens.get(principal)
