/**
 * The live host connections of a gateway, so that a downstream server's sampling or elicitation
 * request reaches a host: the one whose call to that server is in flight (most recent first), or
 * else the host that was active last. A host that did not declare the capability gets nothing:
 * the downstream server gets an error instead.
 */
import { Elicitation, Sampling } from "@interlock/mcp"
import type { Server } from "@modelcontextprotocol/server"
import { Context, Effect, Layer } from "effect"

/** One connected host. */
export interface HostSession {
  readonly server: Server
}

/** Sends a notification on the stream of a host's request (MCP's related-request notifications). */
export type RequestNotify = (notification: { readonly method: string; readonly params?: Record<string, unknown> }) => Promise<void>

/** A host's call in flight to a server, with the stream it answers on. */
export interface InFlightCall {
  readonly session: HostSession
  readonly notify: RequestNotify | undefined
}

/** The service interface. */
export interface HostSessionsShape {
  readonly add: (session: HostSession) => () => void
  /** Marks a call of `session` to `serverId` in flight; the returned function ends it. */
  readonly begin: (session: HostSession, serverId: string, notify?: RequestNotify) => () => void
  /** The host a server's request should go to: the one with the latest call to it in flight, else the last active. */
  readonly pick: (serverId: string) => HostSession | undefined
  /** The latest call in flight to a server, if any. */
  readonly callFor: (serverId: string) => InFlightCall | undefined
  /** Every connected host. */
  readonly all: () => ReadonlyArray<HostSession>
  readonly size: () => number
}

/** The host connections of one gateway. */
export class HostSessions extends Context.Service<HostSessions, HostSessionsShape>()("@interlock/gateway/HostSessions") {
  /** An empty registry. */
  static readonly layer: Layer.Layer<HostSessions> = Layer.sync(HostSessions, () => {
    const sessions: Array<HostSession> = []
    const inFlight = new Map<string, Array<InFlightCall>>()
    let last: HostSession | undefined
    return {
      add: (session) => {
        sessions.push(session)
        last = session
        return () => {
          const at = sessions.indexOf(session)
          if (at >= 0) sessions.splice(at, 1)
          if (last === session) last = sessions[sessions.length - 1]
        }
      },
      begin: (session, serverId, notify) => {
        last = session
        const stack = inFlight.get(serverId) ?? []
        const call = { session, notify }
        stack.push(call)
        inFlight.set(serverId, stack)
        return () => {
          const at = stack.lastIndexOf(call)
          if (at >= 0) stack.splice(at, 1)
        }
      },
      pick: (serverId) => {
        const stack = inFlight.get(serverId)
        return stack !== undefined && stack.length > 0 ? stack[stack.length - 1].session : last
      },
      callFor: (serverId) => {
        const stack = inFlight.get(serverId)
        return stack !== undefined && stack.length > 0 ? stack[stack.length - 1] : undefined
      },
      all: () => sessions,
      size: () => sessions.length
    }
  })
}

const noHost = (what: string) => new Error(`no connected host supports ${what}`)

/** Sampling and Elicitation for the hub, answered by the host picked for the asking server. */
export const hostRequestsLayer: Layer.Layer<Sampling | Elicitation, never, HostSessions> = Layer.unwrap(
  Effect.gen(function*() {
    const hosts = yield* HostSessions
    const capable = (serverId: string, capability: "sampling" | "elicitation") => {
      const host = hosts.pick(serverId)
      return host !== undefined && host.server.getClientCapabilities()?.[capability] !== undefined ? host : undefined
    }
    return Layer.merge(
      Sampling.layer((serverId, params) => {
        const host = capable(serverId, "sampling")
        return host === undefined ? Effect.fail(noHost("sampling")) : Effect.tryPromise(() => host.server.createMessage(params))
      }),
      Elicitation.layer((serverId, params) => {
        const host = capable(serverId, "elicitation")
        return host === undefined
          ? Effect.fail(noHost("elicitation"))
          : Effect.tryPromise(() => host.server.elicitInput(params as Parameters<Server["elicitInput"]>[0]))
      })
    )
  })
)
