/**
 * The gateway's shared resource subscriptions: a server sees one subscription per URI however many
 * hosts follow it, given up when the last host does. Keyed by the URI the hosts subscribed to; the
 * server's own URI differs for a namespaced `ui://` URI. Deciding a subscription is the caller's.
 */
import type { TransportFailure } from "@interlock/core"
import type { HubFeaturesShape } from "@interlock/mcp"
import { Effect } from "effect"
import type { UiTarget } from "../governance/AppUris.ts"
import type { HostSession } from "./HostSessions.ts"

/** The hosts following one URI, and the server and URI it is subscribed to downstream. */
export interface Subscription {
  readonly serverId: string
  readonly uri: string
  readonly hosts: Set<HostSession>
}

/** The subscriptions of one gateway. */
export interface SubscriptionsShape {
  /** `host` follows `uri` (on `target`): subscribed downstream for the first host only. */
  readonly follow: (host: HostSession, uri: string, target: UiTarget) => Effect.Effect<void, TransportFailure>
  /** `host` gives up `uri`: unsubscribed downstream when no host follows it any more. */
  readonly release: (host: HostSession, uri: string) => Effect.Effect<void, TransportFailure>
  /** The subscription of a host-side URI, if any host follows it. */
  readonly of: (uri: string) => Subscription | undefined
  /** The URIs `host` follows. */
  readonly followedBy: (host: HostSession) => ReadonlyArray<string>
}

/** Subscriptions over the hub's (redacting) features. */
export const makeSubscriptions = (
  features: Pick<HubFeaturesShape, "subscribe" | "unsubscribe">
): SubscriptionsShape => {
  const byUri = new Map<string, Subscription>()
  return {
    follow: (host, uri, target) =>
      Effect.suspend(() => {
        const entry = byUri.get(uri)
        if (entry !== undefined) {
          entry.hosts.add(host)
          return Effect.void
        }
        return Effect.tap(features.subscribe(target.serverId, target.uri), () =>
          Effect.sync(() => {
            const now = byUri.get(uri)
            if (now === undefined) byUri.set(uri, { ...target, hosts: new Set([host]) })
            else now.hosts.add(host)
          }))
      }),
    release: (host, uri) =>
      Effect.suspend(() => {
        const entry = byUri.get(uri)
        if (entry === undefined || !entry.hosts.delete(host) || entry.hosts.size > 0) return Effect.void
        byUri.delete(uri)
        return features.unsubscribe(entry.serverId, entry.uri)
      }),
    of: (uri) => byUri.get(uri),
    followedBy: (host) => [...byUri].filter(([, entry]) => entry.hosts.has(host)).map(([uri]) => uri)
  }
}
