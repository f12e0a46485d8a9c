/**
 * The live host connections of a gateway, and who a downstream server's own request (sampling, elicitation) or log
 * message belongs to: a shared session's message is attributed only when that is certain (`attribute`); a host without
 * the capability gets nothing. A 2026-07-28 server's requests, and a `per-host` session's, arrive within one host's
 * call and are asked of that host alone (InputRelay.ts).
 */
import { Elicitation, type HostRequest, Sampling } from "@interlock/mcp"
import type { CreateMessageRequestParams, ElicitRequestParams, Server } from "@modelcontextprotocol/server"
import { Context, Effect, Layer } from "effect"

/** One connected host. */
export interface HostSession {
  readonly server: Server
}

/** Sends a notification on the stream of a host's request (MCP's related-request notifications). */
export type RequestNotify = (
  notification: { readonly method: string; readonly params?: Record<string, unknown> }
) => Promise<void>

/** A host's call in flight to a server, with the stream it answers on. */
export interface InFlightCall {
  readonly session: HostSession
  readonly notify: RequestNotify | undefined
}

/** Whom a server's own message belongs to. */
export type Attribution =
  /** Exactly one host has calls in flight to the server: its latest one. */
  | { readonly _tag: "Call"; readonly call: InFlightCall }
  /** No call is in flight to the server. */
  | { readonly _tag: "Idle" }
  /** Several hosts have calls in flight to the server: nobody can tell whose it is. */
  | { readonly _tag: "Ambiguous" }

/**
 * The attribution rule over the calls in flight to one server (oldest first). A server's session is shared by every
 * host and the 2025 protocol does not say which call a message is about, so it goes to the one host with calls in
 * flight to that server (with none in flight, hostFor picks the only connected host). With several such hosts it is
 * attributed to nobody (the server gets an error; a log message is dropped), so that no host sees what another host's
 * call produced.
 */
export const attribute = (calls: ReadonlyArray<InFlightCall>): Attribution => {
  if (calls.length === 0) return { _tag: "Idle" }
  const latest = calls[calls.length - 1]
  return calls.every((call) => call.session === latest.session) ? { _tag: "Call", call: latest } : { _tag: "Ambiguous" }
}

/** The service interface. */
export interface HostSessionsShape {
  readonly add: (session: HostSession) => () => void
  /** Marks a call of `session` to `serverId` in flight; the returned function ends it. */
  readonly begin: (session: HostSession, serverId: string, notify?: RequestNotify) => () => void
  /** Whom a message of `serverId` belongs to right now. */
  readonly attribute: (serverId: string) => Attribution
  /** Every connected host. */
  readonly all: () => ReadonlyArray<HostSession>
}

/** The host connections of one gateway. */
export class HostSessions
  extends Context.Service<HostSessions, HostSessionsShape>()("@interlock/gateway/HostSessions")
{
  /** An empty registry. */
  static readonly layer: Layer.Layer<HostSessions> = Layer.sync(HostSessions, () => {
    const sessions: Array<HostSession> = []
    const inFlight = new Map<string, Array<InFlightCall>>()
    return {
      add: (session) => {
        sessions.push(session)
        return () => {
          const at = sessions.indexOf(session)
          if (at >= 0) sessions.splice(at, 1)
        }
      },
      begin: (session, serverId, notify) => {
        const stack = inFlight.get(serverId) ?? []
        const call = { session, notify }
        stack.push(call)
        inFlight.set(serverId, stack)
        return () => {
          const at = stack.lastIndexOf(call)
          if (at >= 0) stack.splice(at, 1)
        }
      },
      attribute: (serverId) => attribute(inFlight.get(serverId) ?? []),
      all: () => sessions
    }
  })
}

/**
 * Stands for a call whose host has no channel for a server's requests (a 2026-07-28 host): marked
 * in flight like any call, so that a shared session's request during it is attributed to nobody.
 */
export const HOSTLESS: HostSession = { server: undefined as never }

/** The host connection the current request came on, as the front provides it; none outside a host's request. */
export const CurrentHostSession = Context.Reference<HostSession | undefined>("@interlock/gateway/CurrentHostSession", {
  defaultValue: () => undefined
})

/**
 * `host` when it has a server-to-client channel: a connection that negotiated 2026-07-28 has none,
 * so it counts as none.
 */
export const withChannel = (host: HostSession | undefined): HostSession | undefined =>
  host !== undefined && hasChannel(host) ? host : undefined

/**
 * Whether a server's request can be sent to `host`: not HOSTLESS, and not a connection that negotiated 2026-07-28
 * (which has no such channel).
 */
const hasChannel = (host: HostSession): boolean =>
  host !== HOSTLESS && host.server.getNegotiatedProtocolVersion()?.startsWith("2026-") !== true

const CAPABILITY: Readonly<Record<string, "sampling" | "elicitation">> = {
  "sampling/createMessage": "sampling",
  "elicitation/create": "elicitation"
}

/**
 * Asks one host a server's request (already redacted): sampling or elicitation, refused when the
 * host did not declare the capability; the gateway forwards no other request (roots). Interrupting
 * it cancels the request on the host's wire.
 */
export const askHost = (host: HostSession, request: HostRequest): Effect.Effect<unknown, Error> => {
  const capability = CAPABILITY[request.method]
  if (capability === undefined) return Effect.fail(new Error(`the gateway does not forward ${request.method} requests`))
  // A 2026-07-28 host is asked only by a round of its own call (InputRelay).
  if (!hasChannel(host)) return Effect.fail(new Error(`the calling host cannot answer ${capability} requests`))
  if (host.server.getClientCapabilities()?.[capability] === undefined) {
    return Effect.fail(new Error(`the host does not support ${capability}`))
  }
  // The params are the server's request as its SDK client checked it against the protocol's schema.
  const params = request.params
  return Effect.tryPromise({
    try: (signal): Promise<unknown> =>
      capability === "sampling"
        ? host.server.createMessage(params as CreateMessageRequestParams, { signal })
        : host.server.elicitInput(params as ElicitRequestParams, { signal }),
    catch: (error) => (error instanceof Error ? error : new Error("the host's answer failed"))
  })
}

/** The host a server's own request on a shared session goes to, or why there is none. */
const hostFor = (
  hosts: HostSessionsShape,
  serverId: string,
  capability: "sampling" | "elicitation"
): HostSession | Error => {
  const owner = hosts.attribute(serverId)
  const all = hosts.all()
  const host = owner._tag === "Call"
    ? owner.call.session
    : owner._tag === "Idle" && all.length === 1
    ? all[0]
    : undefined
  if (host === undefined) {
    return new Error(
      owner._tag === "Ambiguous"
        ? `several hosts have calls in flight to this server; the ${capability} request cannot be attributed to one`
        : `no single host to send the ${capability} request to`
    )
  }
  return host
}

/** Sampling and Elicitation for the hub, answered by the host the asking server's request belongs to. */
export const hostRequestsLayer: Layer.Layer<Sampling | Elicitation, never, HostSessions> = Layer.unwrap(
  Effect.gen(function*() {
    const hosts = yield* HostSessions
    const ask = (serverId: string, method: string, params: unknown) => {
      const host = hostFor(hosts, serverId, CAPABILITY[method])
      return host instanceof Error
        ? Effect.fail(host)
        : askHost(host, { method, params: params as Readonly<Record<string, unknown>> })
    }
    return Layer.merge(
      Sampling.layer((serverId, params) =>
        ask(serverId, "sampling/createMessage", params) as Effect.Effect<never, Error>
      ),
      Elicitation.layer((serverId, params) =>
        ask(serverId, "elicitation/create", params) as Effect.Effect<never, Error>
      )
    )
  })
)
