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

/** The service interface. */
export interface HostSessionsShape {
  readonly add: (session: HostSession) => () => void
  /** Marks a call of `session` to `serverId` in flight; the returned function ends it. */
  readonly begin: (session: HostSession, serverId: string) => () => void
  readonly pick: (serverId: string) => HostSession | undefined
  readonly size: () => number
}

/** The host connections of one gateway. */
export class HostSessions extends Context.Service<HostSessions, HostSessionsShape>()("@interlock/gateway/HostSessions") {
  /** An empty registry. */
  static readonly layer: Layer.Layer<HostSessions> = Layer.sync(HostSessions, () => {
    const sessions: Array<HostSession> = []
    const inFlight = new Map<string, Array<HostSession>>()
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
      begin: (session, serverId) => {
        last = session
        const stack = inFlight.get(serverId) ?? []
        stack.push(session)
        inFlight.set(serverId, stack)
        return () => {
          const at = stack.lastIndexOf(session)
          if (at >= 0) stack.splice(at, 1)
        }
      },
      pick: (serverId) => {
        const stack = inFlight.get(serverId)
        return stack !== undefined && stack.length > 0 ? stack[stack.length - 1] : last
      },
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
