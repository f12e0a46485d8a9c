/**
 * Every MCP feature beyond tools, between the gateway's hosts and its servers. Reads and gets pass
 * core's gates (hooks, policy) and the config's redactions; a subscription is decided as its read, a
 * completion as its prompt's get or its template's read (both audited). Listings are FeatureListings',
 * routing ResourceRouting's; Subscriptions, HostLogLevels and ServerNotifications share the rest.
 */
import type {
  Denied,
  HookFailed,
  JsonObject,
  OperationOptions,
  PromptResult,
  ResourceContents,
  TransportFailure
} from "@interlock/core"
import type { HubFeaturesShape } from "@interlock/mcp"
import type { CompleteRequestParams, CompleteResult, LoggingLevel } from "@modelcontextprotocol/server"
import { Effect } from "effect"
import type { AuditError } from "../audit/AuditStore.ts"
import { exposeContentsUris } from "../governance/AppUris.ts"
import { redactPrompt, redactResourceContents } from "../governance/ContentRedaction.ts"
import type { Namespace } from "../governance/Namespace.ts"
import { redactingFeatures } from "../governance/RedactingFeatures.ts"
import { type Redaction, redactionsFor } from "../governance/Redactor.ts"
import { type Authenticated, authenticatedFeatures } from "./AuthenticatedFeatures.ts"
import { makeCompletions } from "./Completions.ts"
import { type FeatureListingsShape, makeFeatureListings } from "./FeatureListings.ts"
import type { GatewayCallsShape, ReadFailure } from "./GatewayCalls.ts"
import { makeHostLogLevels } from "./HostLogLevels.ts"
import type { HostSession, HostSessionsShape } from "./HostSessions.ts"
import { makeResourceRouting, Unrouted } from "./ResourceRouting.ts"
import { notificationRouter } from "./ServerNotifications.ts"
import { makeSubscriptions } from "./Subscriptions.ts"

/**
 * What a read or get can fail with (a 2026-07-28 host's may end InputRequired or StateRefused: GatewayCalls relays it).
 */
export type GateFailure = ReadFailure | Unrouted | AuditError

/** What a subscription or a completion can fail with: its decision's refusal, its audit, or the server. */
export type DecidedFailure = Denied | HookFailed | AuditError | TransportFailure | Unrouted

/** The service interface the front servers use. */
export interface FeatureForwarderShape {
  readonly listResources: FeatureListingsShape["listResources"]
  readonly listResourceTemplates: FeatureListingsShape["listResourceTemplates"]
  readonly readResource: (uri: string, options: OperationOptions) => Effect.Effect<ResourceContents, GateFailure>
  /** Subscribes `host` to `uri`, once the subscription is decided as a read of it would be. */
  readonly subscribe: (
    host: HostSession,
    uri: string,
    options?: OperationOptions
  ) => Effect.Effect<void, DecidedFailure>
  /** Gives up a subscription: never refused, it only releases what a decided subscribe gave. */
  readonly unsubscribe: (host: HostSession, uri: string) => Effect.Effect<void, TransportFailure>
  readonly listPrompts: FeatureListingsShape["listPrompts"]
  readonly getPrompt: (
    name: string,
    args: JsonObject,
    options: OperationOptions
  ) => Effect.Effect<PromptResult, GateFailure>
  /** Completes, once decided as the prompt's get (with the arguments known so far) or the template's read. */
  readonly complete: (
    params: CompleteRequestParams,
    options?: OperationOptions
  ) => Effect.Effect<CompleteResult, DecidedFailure>
  readonly setLoggingLevel: (host: HostSession, level: LoggingLevel) => Effect.Effect<void, TransportFailure>
  /** Remembers the resources a tool result of `serverId` pointed at, so the host can read them. */
  readonly noteResult: (serverId: string, content: ReadonlyArray<unknown>) => void
  /** Forgets a host that disconnected (its subscriptions and logging level). */
  readonly hostClosed: (host: HostSession) => void
}

/** What the forwarder is built from. */
export interface ForwarderDeps {
  readonly serverIds: ReadonlyArray<string>
  readonly features: HubFeaturesShape
  readonly calls: GatewayCallsShape
  readonly hosts: HostSessionsShape
  /** Prompt names, and `ui://` URIs, toward the host. */
  readonly prompts: Namespace
  /** The redactions in force (read on each use: a reload may replace them). */
  readonly redactions: ReadonlyArray<Redaction>
  /** Runs a background Effect in the gateway's scope. */
  readonly fork: (effect: Effect.Effect<unknown, unknown>) => void
  /**
   * Runs a request to a server with the downstream credential of the operation's principal
   * (CredentialTransport.ts); without it, requests go without one (a per-principal server's are then refused).
   */
  readonly authenticated?: Authenticated
}

/** Builds the forwarder and starts following the servers' notifications; returns it and its stop. */
export const makeFeatureForwarder = (
  deps: ForwarderDeps
): { readonly forwarder: FeatureForwarderShape; readonly stop: () => void } => {
  const { serverIds } = deps
  const features = redactingFeatures(deps.features, () => deps.redactions)
  const sent = authenticatedFeatures(features, deps)
  const routing = makeResourceRouting(deps, features, sent)
  const listings = makeFeatureListings(deps, routing, sent)
  const levels = makeHostLogLevels(serverIds, features)
  const subscriptions = makeSubscriptions(features)
  const stop = features.onNotification(notificationRouter(deps, subscriptions, levels.of))

  const forwarder: FeatureForwarderShape = {
    listResources: listings.listResources,
    listResourceTemplates: listings.listResourceTemplates,
    readResource: (uri, options) =>
      Effect.flatMap(
        routing.routedUri(uri),
        (target) =>
          Effect.map(deps.calls.readResource(target.serverId, target.uri, options), (contents) => {
            const read = redactResourceContents(contents, redactionsFor(deps.redactions, target.serverId, target.uri))
            const shown = exposeContentsUris(deps.prompts, target.serverId, read.contents)
            return shown === read.contents ? read : { ...read, contents: shown }
          })
      ),
    // Every host's subscription is decided, also one to a URI another host follows already.
    subscribe: (host, uri, options) =>
      Effect.flatMap(routing.routedUri(uri), (target) =>
        Effect.andThen(
          deps.calls.decideRead("resources/subscribe", target.serverId, target.uri, options),
          subscriptions.follow(host, uri, target)
        )),
    unsubscribe: subscriptions.release,
    listPrompts: listings.listPrompts,
    getPrompt: (name, args, options) => {
      const target = deps.prompts.resolve(name)
      if (target === undefined) return Effect.fail(new Unrouted({ what: "prompt" }))
      return Effect.map(
        deps.calls.getPrompt(target.serverId, target.name, args, options),
        (prompt) => redactPrompt(prompt, redactionsFor(deps.redactions, target.serverId, target.name))
      )
    },
    complete: makeCompletions(deps, routing, sent),
    setLoggingLevel: levels.set,
    noteResult: routing.noteResult,
    hostClosed: (host) => {
      levels.forget(host)
      deps.features.releaseHost(host)
      const uris = subscriptions.followedBy(host)
      if (uris.length > 0) {
        deps.fork(Effect.forEach(uris, (uri) => Effect.ignore(subscriptions.release(host, uri)), { discard: true }))
      }
    }
  }
  return { forwarder, stop }
}
