/**
 * How a hub's requests are authenticated, as its builder (the gateway's credentials) says: a {@link ServerAuth} gives
 * a session's headers and a principal's process environment, and a request's {@link CurrentCredential} says whose
 * sessions carry it. On a per-principal server a principal's requests use only its own sessions; none, none sent.
 */
import type { TransportFailure } from "@interlock/core"
import type { FetchLike } from "@modelcontextprotocol/client"
import { Context, type Effect } from "effect"

/** What one request is sent with. */
export interface Credential {
  /** The principal whose own sessions carry the request (on a per-principal server); undefined: none. */
  readonly principal: string | undefined
  /** Headers of this request alone (an identity token), besides its session's; HTTP only. */
  readonly headers: Readonly<Record<string, string>> | undefined
}

/** The credential of the current request; none outside an authenticated caller's request. */
export const CurrentCredential = Context.Reference<Credential | undefined>("@interlock/mcp/CurrentCredential", {
  defaultValue: () => undefined
})

/** How a server's sessions are authenticated. */
export interface ServerAuth {
  /**
   * The headers of one HTTP request on a session of `principal` (undefined on a session shared by
   * every caller), set over the configured ones. Failing, the request is not sent.
   */
  readonly headers?: (
    principal: string | undefined
  ) => Effect.Effect<Readonly<Record<string, string>>, TransportFailure>
  /** The environment a stdio process opened for `principal` gets over the server's own (per-principal sessions). */
  readonly env?: (principal: string) => Readonly<Record<string, string>>
}

/** A session's headers could not be had (the ServerAuth failed): the request was not sent. */
export class CredentialUnavailable extends Error {
  constructor(detail: string) {
    super(detail)
    this.name = "CredentialUnavailable"
  }
}

/**
 * Gets a session's auth headers for one request, through `run` (the hub's runtime); a failure is a
 * CredentialUnavailable.
 */
type HeadersFor = () => Promise<Readonly<Record<string, string>>>

/**
 * `base` with the session's auth headers set on every request to the server's own origin (a
 * redirect elsewhere gets none). When they cannot be had, the request is not sent.
 */
export const withAuthHeaders =
  (base: FetchLike, origin: string, headersFor: HeadersFor): FetchLike => async (url, init) => {
    if (new URL(url).origin !== origin) return base(url, init)
    let extra: Readonly<Record<string, string>>
    try {
      extra = await headersFor()
    } catch (error) {
      const detail = (error as { detail?: unknown } | null)?.detail
      throw new CredentialUnavailable(typeof detail === "string" ? detail : "the server's credential could not be had")
    }
    const headers = new Headers(init?.headers)
    for (const [name, value] of Object.entries(extra)) headers.set(name, value)
    return base(url, { ...init, headers })
  }
