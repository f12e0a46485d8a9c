/**
 * The MCP features a hub forwards besides tools: resource, template and prompt listings,
 * completion, resource subscriptions and the logging level, and the notifications servers send
 * about them. Subscriptions and the logging level are kept per server and restored whenever the
 * server reconnects, so a host that subscribed once keeps its updates across a crash.
 */
import { ProtocolError, type TransportFailure } from "@interlock/core"
import type {
  CompleteRequestParams,
  CompleteResult,
  LoggingLevel,
  Prompt,
  Resource,
  ResourceTemplateType,
  ServerCapabilities
} from "@modelcontextprotocol/client"
import { Effect } from "effect"
import type { HubListener } from "./HubNotification.ts"
import { requestMeta, withMeta } from "./RequestMeta.ts"
import { type ServerSlot, withSession } from "./ServerSlot.ts"
import type { Session } from "./Session.ts"
import { currentCaller } from "./TracedCaller.ts"

/** The features of the hub's servers, by serverId. */
export interface HubFeaturesShape {
  /** What a server offers (connecting it first when needed). */
  readonly capabilities: (serverId: string) => Effect.Effect<ServerCapabilities, TransportFailure>
  /** Every resource a server lists (all pages); empty when it offers no resources. */
  readonly listResources: (serverId: string) => Effect.Effect<ReadonlyArray<Resource>, TransportFailure>
  /** Every resource template a server lists (all pages). */
  readonly listResourceTemplates: (
    serverId: string
  ) => Effect.Effect<ReadonlyArray<ResourceTemplateType>, TransportFailure>
  /** Every prompt a server lists (all pages). */
  readonly listPrompts: (serverId: string) => Effect.Effect<ReadonlyArray<Prompt>, TransportFailure>
  /** Asks a server to complete a prompt or resource-template argument. */
  readonly complete: (
    serverId: string,
    params: CompleteRequestParams
  ) => Effect.Effect<CompleteResult, TransportFailure>
  /** Subscribes to a resource's updates (kept across reconnects). */
  readonly subscribe: (serverId: string, uri: string) => Effect.Effect<void, TransportFailure>
  /** Ends a subscription. */
  readonly unsubscribe: (serverId: string, uri: string) => Effect.Effect<void, TransportFailure>
  /** Sets the level of log messages a server sends (kept across reconnects); a server without logging is skipped. */
  readonly setLoggingLevel: (serverId: string, level: LoggingLevel) => Effect.Effect<void, TransportFailure>
  /** Closes the per-host sessions a caller key has on any server (its host went away). */
  readonly releaseHost: (key: object) => void
  /** Adds a listener for list changes, resource updates and log messages of every server; returns its removal. */
  readonly onNotification: (listener: HubListener) => () => void
}

const unsupported = (serverId: string, what: string) =>
  new ProtocolError({ serverId, code: -32601, detail: `the server does not offer ${what}` })

/** The features over the hub's slots; `listeners` receive every server's notifications. */
export const makeHubFeatures = (
  slots: ReadonlyMap<string, ServerSlot>,
  listeners: Set<HubListener>
): HubFeaturesShape => {
  const capabilitiesOf = (session: Session): ServerCapabilities => session.client.getServerCapabilities() ?? {}
  // A server that does not advertise the capability is not asked (the SDK would print a debug line
  // to stdout, which is the host's channel when the gateway serves stdio): its list is empty.
  const list = <A>(
    phase: string,
    offered: (capabilities: ServerCapabilities) => boolean,
    empty: A,
    run: (session: Session, options: { signal: AbortSignal; timeout: number; cacheMode: "refresh" }) => Promise<A>
  ) =>
  (serverId: string) =>
    withSession(slots, serverId, (slot, session) =>
      offered(capabilitiesOf(session))
        ? slot.request(
          session,
          phase,
          (signal) => run(session, { signal, timeout: slot.config.requestTimeoutMs, cacheMode: "refresh" })
        )
        : Effect.succeed(empty))
  const hasResources = (capabilities: ServerCapabilities) => capabilities.resources !== undefined
  // A 2026-07-28 server's discover may leave out completions and resource subscriptions that it
  // serves (the revision subscribes through subscriptions/listen): such a session is asked, and
  // the server's own answer (Method not found, say) goes back. A 2025 session follows initialize.
  const completable = (session: Session) => session.modern || capabilitiesOf(session).completions !== undefined
  const subscribable = (session: Session) =>
    session.modern
      ? capabilitiesOf(session).resources !== undefined
      : capabilitiesOf(session).resources?.subscribe === true
  const listResources = list(
    "during resources/list",
    hasResources,
    { resources: [] },
    (session, options) => session.client.listResources(undefined, options)
  )
  const listTemplates = list(
    "during resources/templates/list",
    hasResources,
    { resourceTemplates: [] },
    (session, options) => session.client.listResourceTemplates(undefined, options)
  )
  const listPrompts = list(
    "during prompts/list",
    (capabilities) => capabilities.prompts !== undefined,
    { prompts: [] },
    (session, options) => session.client.listPrompts(undefined, options)
  )
  const setSubscription = (serverId: string, uri: string, on: boolean) =>
    withSession(slots, serverId, (slot, session) => {
      if (!subscribable(session)) return Effect.fail(unsupported(serverId, "resource subscriptions"))
      if (on === slot.subscriptions.has(uri)) return Effect.void
      slot.markSubscribed(uri, on)
      const timeout = slot.config.requestTimeoutMs
      const apply = on || session.modern
        ? slot.applySubscriptions(session, on ? [uri] : [])
        : slot.request(
          session,
          "during resources/unsubscribe",
          (signal) => session.client.unsubscribeResource({ uri }, { signal, timeout })
        )
      // A subscription the server refused is not kept (and not restored later).
      return apply.pipe(
        Effect.asVoid,
        Effect.tapError(() => Effect.sync(() => slot.markSubscribed(uri, !on)))
      )
    })
  return {
    capabilities: (serverId) =>
      withSession(slots, serverId, (_slot, session) => Effect.succeed(capabilitiesOf(session))),
    listResources: (serverId) => Effect.map(listResources(serverId), (result) => result.resources),
    listResourceTemplates: (serverId) => Effect.map(listTemplates(serverId), (result) => result.resourceTemplates),
    listPrompts: (serverId) => Effect.map(listPrompts(serverId), (result) => result.prompts),
    complete: (serverId, params) =>
      Effect.flatMap(currentCaller, (caller) =>
        withSession(slots, serverId, (slot, session) =>
          !completable(session)
            ? Effect.fail(unsupported(serverId, "completions"))
            : slot.request(session, "during completion/complete", (signal) =>
              session.client.complete(
                withMeta(params, requestMeta(caller, session.modern, params._meta, slot.loggingLevel)),
                { signal, timeout: slot.config.requestTimeoutMs }
              )))),
    subscribe: (serverId, uri) => setSubscription(serverId, uri, true),
    unsubscribe: (serverId, uri) => setSubscription(serverId, uri, false),
    setLoggingLevel: (serverId, level) =>
      // A per-principal server is not sent a host's level: it would need a session of no one's.
      slots.get(serverId)?.config.sessions === "per-principal" ?
        Effect.void :
        withSession(slots, serverId, (slot, session) => {
          if (capabilitiesOf(session).logging === undefined) return Effect.void
          slot.rememberLoggingLevel(level)
          // The 2026-07-28 revision has no logging/setLevel: the level goes with each request (RequestMeta).
          if (session.modern) return Effect.void
          return Effect.asVoid(
            slot.request(session, "during logging/setLevel", (signal) =>
              session.client.setLoggingLevel(level, { signal, timeout: slot.config.requestTimeoutMs }))
          )
        }),
    releaseHost: (key) => {
      for (const slot of slots.values()) slot.release(key)
    },
    onNotification: (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    }
  }
}
