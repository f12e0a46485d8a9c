/**
 * The resource subscriptions of a 2026-07-28 host on stdio. serveStdio answers `subscriptions/listen` itself and writes
 * the pinned server's change notifications onto the open subscriptions, but cannot know that the gateway must follow a
 * listened resource downstream: this transport wrapper (`followListens`) subscribes each listen's resources for the
 * connection's host before serveStdio sees it, until the listen is cancelled or the connection ends.
 */
import type { JSONRPCMessage, Server, Transport, TransportSendOptions } from "@modelcontextprotocol/server"
import { Effect } from "effect"
import type { HostSession } from "../../calls/HostSessions.ts"
import type { FrontDeps } from "../FrontServer.ts"
import type { Era } from "../RequestEra.ts"

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The resource URIs a `subscriptions/listen` request follows (none for any other message). */
export const listenedUris = (message: JSONRPCMessage): ReadonlyArray<string> => {
  if (!("method" in message) || message.method !== "subscriptions/listen" || !isObject(message.params)) return []
  const notifications = message.params.notifications
  const uris = isObject(notifications) ? notifications.resourceSubscriptions : undefined
  return Array.isArray(uris) ? [...new Set(uris.filter((uri): uri is string => typeof uri === "string"))] : []
}

/** A listen request with `uris` as the resources it follows. */
const withSubscriptions = (message: JSONRPCMessage, uris: ReadonlyArray<string>): JSONRPCMessage => {
  const params = (message as { readonly params: Record<string, unknown> }).params
  const notifications = params.notifications as Record<string, unknown>
  return { ...message, params: { ...params, notifications: { ...notifications, resourceSubscriptions: [...uris] } } }
}

/** The wrapped transport, the factory hook that learns the connection's server, and the release at the end. */
export interface StdioListens {
  readonly transport: Transport
  /** Records the server serveStdio pinned (or probes with) and its era, and returns it. */
  readonly pinned: (server: Server, era: Era) => Server
  readonly close: () => void
}

/**
 * Follows the listened resources of the connection on `inner`: each listen request's resources are subscribed for the
 * connection's host (decided as reads; the forwarder shares the downstream subscription, as for a 2025 host's
 * resources/subscribe) before serveStdio sees it with only the allowed resources, the messages after it held in order
 * meanwhile.
 */
export const followListens = (deps: FrontDeps, inner: Transport): StdioListens => {
  let host: HostSession | undefined
  const byListen = new Map<string | number, ReadonlyArray<string>>()
  const never = new AbortController().signal
  const release = (uris: ReadonlyArray<string>) => {
    if (host === undefined) return
    for (const uri of uris) {
      void deps.run(Effect.ignore(deps.features.unsubscribe(host, uri)), never).catch(() => undefined)
    }
  }
  // Resolves once the listen's resources are followed downstream, to the listen as serveStdio is to
  // see it: only the resources whose subscription the policy allowed (undefined for any other message).
  const inbound = (message: JSONRPCMessage): Promise<JSONRPCMessage> | undefined => {
    const uris = listenedUris(message)
    if (uris.length > 0 && host !== undefined && "id" in message && message.id !== undefined) {
      const following = host
      const id = message.id
      return Promise.all(
        uris.map((uri) => deps.run(Effect.isSuccess(deps.features.subscribe(following, uri)), never).catch(() => false))
      ).then((followed) => {
        const kept = uris.filter((_uri, at) => followed[at])
        byListen.set(id, kept)
        return withSubscriptions(message, kept)
      })
    }
    if ("method" in message && message.method === "notifications/cancelled" && isObject(message.params)) {
      const id = message.params.requestId
      if (typeof id !== "string" && typeof id !== "number") return
      const uris = byListen.get(id)
      byListen.delete(id)
      if (uris !== undefined) release(uris)
    }
    return undefined
  }
  // While a listen waits for its subscriptions, the messages after it wait behind it, in order.
  let held: Promise<unknown> | undefined
  const hold = (work: Promise<unknown>) => {
    held = work
    void work.finally(() => {
      if (held === work) held = undefined
    })
  }
  const deliver =
    (handler: NonNullable<Transport["onmessage"]>): NonNullable<Transport["onmessage"]> => (message, extra) => {
      if (held !== undefined) {
        return hold(held.then(() => inbound(message)).then((shown) => handler(shown ?? message, extra)))
      }
      const waiting = inbound(message)
      if (waiting === undefined) return handler(message, extra)
      hold(waiting.then((shown) => handler(shown, extra)))
    }
  const transport: Transport = {
    start: () => inner.start(),
    send: (message: JSONRPCMessage, options?: TransportSendOptions) => inner.send(message, options),
    close: () => inner.close(),
    set onmessage(handler: Transport["onmessage"]) {
      inner.onmessage = handler === undefined ? undefined : deliver(handler)
    },
    get onmessage() {
      return inner.onmessage
    },
    set onclose(handler: (() => void) | undefined) {
      inner.onclose = handler
    },
    get onclose() {
      return inner.onclose
    },
    set onerror(handler: ((error: Error) => void) | undefined) {
      inner.onerror = handler
    },
    get onerror() {
      return inner.onerror
    }
  }
  return {
    transport,
    pinned: (server, era) => {
      // A 2025 connection has no listen requests: its resources/subscribe is the forwarder's already.
      host = era === "modern" ? { server } : undefined
      return server
    },
    close: () => {
      for (const uris of byListen.values()) release(uris)
      byListen.clear()
    }
  }
}
