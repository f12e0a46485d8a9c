/**
 * How the downstream servers' change notifications reach a principal's `subscriptions/listen` streams (2026-07-28 hosts
 * over HTTP). Each principal has one bridge (`makeListenBridge`), whose server puts what the FeatureForwarder gives it
 * onto that principal's event bus, from which the SDK's listen router writes each stream what its filter asked for. One
 * principal's bus never carries what only another principal's streams follow.
 */
import type { Principal } from "@interlock/core"
import {
  InMemoryServerEventBus,
  type JSONRPCMessage,
  Server,
  type ServerEvent,
  type ServerEventBus,
  type Transport
} from "@modelcontextprotocol/server"
import { Effect } from "effect"
import type { HostSession } from "../../../calls/HostSessions.ts"
import { FRONT_CAPABILITIES } from "../../FrontFeatures.ts"
import type { FrontDeps } from "../../FrontServer.ts"

/** A change notification as the listen router's event; undefined for any other message. */
export const listenEvent = (message: JSONRPCMessage): ServerEvent | undefined => {
  if (!("method" in message) || "id" in message) return undefined
  switch (message.method) {
    case "notifications/tools/list_changed":
      return { kind: "tools_list_changed" }
    case "notifications/prompts/list_changed":
      return { kind: "prompts_list_changed" }
    case "notifications/resources/list_changed":
      return { kind: "resources_list_changed" }
    case "notifications/resources/updated": {
      const params = message.params ?? {}
      const { _meta: _dropped, uri, ...rest } = params as { readonly _meta?: unknown; readonly uri?: unknown }
      return typeof uri === "string" ? { kind: "resource_updated", uri, params: rest } : undefined
    }
    default:
      return undefined
  }
}

/** The transport of a bridge's server: what it sends is published on the bus; nothing comes in. */
class BusTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: Transport["onmessage"]
  private readonly bus: ServerEventBus

  constructor(bus: ServerEventBus) {
    this.bus = bus
  }

  start(): Promise<void> {
    return Promise.resolve()
  }

  send(message: JSONRPCMessage): Promise<void> {
    const event = listenEvent(message)
    if (event !== undefined) this.bus.publish(event)
    return Promise.resolve()
  }

  close(): Promise<void> {
    this.onclose?.()
    return Promise.resolve()
  }
}

/** One principal's bridge. */
export interface ListenBridge {
  /** The bus the principal's listen streams read. */
  readonly bus: ServerEventBus
  /**
   * A listen stream opened that follows `uris`: the ones a server of the gateway offers are
   * subscribed downstream (shared, as the forwarder does for every host) and returned; call
   * `closed` with them when the stream ends.
   */
  readonly opened: (uris: ReadonlyArray<string>, signal: AbortSignal) => Promise<ReadonlyArray<string>>
  /** A listen stream ended. */
  readonly closed: (uris: ReadonlyArray<string>) => void
  /** Whether none of the principal's streams is open. */
  readonly idle: () => boolean
}

/**
 * A bridge for one principal's listen streams: a connected host of the gateway (HostSessions, while one of its streams
 * is open) whose server sends what the FeatureForwarder gives it (list changes, and, redacted, updates of the resources
 * this principal's streams follow) onto the bus. It is asked nothing (it declares no client capability) and drops log
 * messages (a 2026-07-28 host gets those on its call's stream).
 */
export const makeListenBridge = (deps: FrontDeps, principal?: Principal): ListenBridge => {
  // A stream's subscriptions are decided for its principal, as its reads would be.
  const options = principal === undefined ? {} : { principal }
  const bus = new InMemoryServerEventBus()
  const server = new Server({ name: "interlock-listen", version: deps.version }, { capabilities: FRONT_CAPABILITIES })
  void server.connect(new BusTransport(bus))
  const host: HostSession = { server }
  const following = new Map<string, number>()
  let streams = 0
  let remove: (() => void) | undefined

  const follow = (uri: string, signal: AbortSignal): Promise<boolean> => {
    const count = following.get(uri) ?? 0
    following.set(uri, count + 1)
    if (count > 0) return Promise.resolve(true)
    return deps.run(Effect.result(deps.features.subscribe(host, uri, options)), signal).then(
      (result) => {
        if (result._tag === "Success") return true
        unfollow(uri)
        return false
      },
      () => {
        unfollow(uri)
        return false
      }
    )
  }
  const unfollow = (uri: string) => {
    const count = (following.get(uri) ?? 1) - 1
    if (count > 0) return void following.set(uri, count)
    following.delete(uri)
    void deps.run(Effect.ignore(deps.features.unsubscribe(host, uri)), new AbortController().signal).catch(() =>
      undefined
    )
  }

  return {
    bus,
    opened: async (uris, signal) => {
      if (streams++ === 0) remove = deps.hosts.add(host)
      const unique = [...new Set(uris)]
      const followed = await Promise.all(unique.map((uri) => follow(uri, signal)))
      return unique.filter((_uri, at) => followed[at])
    },
    closed: (uris) => {
      for (const uri of uris) unfollow(uri)
      if (--streams === 0) {
        remove?.()
        remove = undefined
      }
    },
    idle: () => streams === 0
  }
}
