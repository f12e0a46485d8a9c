/**
 * The FeatureForwarder: every MCP feature beyond tools, between the gateway's hosts and its
 * servers. Listings are merged across servers (prompt names namespaced like tools, resource URIs
 * unchanged and routed by ResourceRoutes, but MCP Apps' `ui://` URIs, namespaced like prompts by
 * AppUris.ts), and with `hideDenied` hold only what the policy lets a host read or get. Reads and
 * gets pass core's gates (hooks, policy) and the config's redactions; a subscription is decided as
 * its read, a completion as its prompt's get or its template's read (both audited). Subscriptions
 * are shared (Subscriptions.ts); the logging level a server gets is the most verbose one any host
 * asked for; server notifications fan out to the hosts that want them (ServerNotifications.ts).
 */
import type {
  Denied,
  HookFailed,
  JsonObject,
  OperationOptions,
  PolicyOperation,
  PromptResult,
  ResourceContents,
  TransportFailure
} from "@interlock/core"
import type { HubFeaturesShape } from "@interlock/mcp"
import type {
  CompleteRequestParams,
  CompleteResult,
  LoggingLevel,
  Prompt,
  Resource,
  ResourceTemplateType
} from "@modelcontextprotocol/server"
import { Effect, Schema } from "effect"
import type { AuditError } from "../audit/AuditStore.ts"
import { exposeContentsUris, exposeUriAt, resolveUiUri, type UiTarget } from "../governance/AppUris.ts"
import { redactDefinition, redactPrompt, redactResourceContents } from "../governance/ContentRedaction.ts"
import type { Namespace } from "../governance/Namespace.ts"
import { redactingFeatures } from "../governance/RedactingFeatures.ts"
import { type Redaction, redactionsFor, redactJson } from "../governance/Redactor.ts"
import type { GatewayCallsShape, ReadFailure } from "./GatewayCalls.ts"
import type { HostSession, HostSessionsShape } from "./HostSessions.ts"
import { mostVerbose } from "./LogLevels.ts"
import { mergedListing } from "./MergedListing.ts"
import { linkedUris, ResourceRoutes } from "./ResourceRoutes.ts"
import { notificationRouter } from "./ServerNotifications.ts"
import { makeSubscriptions } from "./Subscriptions.ts"

/** No server claims what the host named (a resource URI, a prompt, a completion reference). */
export class Unrouted extends Schema.TaggedError<Unrouted>()("Unrouted", {
  what: Schema.Literals(["resource", "prompt", "reference"])
}) {
  override get message(): string {
    return `no server of this gateway offers this ${this.what}`
  }
}

/** What a read or get can fail with (a 2026-07-28 host's may end InputRequired or StateRefused: GatewayCalls relays it). */
export type GateFailure = ReadFailure | Unrouted | AuditError

/** What a subscription or a completion can fail with: its decision's refusal, its audit, or the server. */
export type DecidedFailure = Denied | HookFailed | AuditError | TransportFailure | Unrouted

/** The service interface the front servers use. */
export interface FeatureForwarderShape {
  readonly listResources: (options?: OperationOptions) => Effect.Effect<ReadonlyArray<Resource>, TransportFailure>
  readonly listResourceTemplates: (
    options?: OperationOptions
  ) => Effect.Effect<ReadonlyArray<ResourceTemplateType>, TransportFailure>
  readonly readResource: (uri: string, options: OperationOptions) => Effect.Effect<ResourceContents, GateFailure>
  /** Subscribes `host` to `uri`, once the subscription is decided as a read of it would be. */
  readonly subscribe: (
    host: HostSession,
    uri: string,
    options?: OperationOptions
  ) => Effect.Effect<void, DecidedFailure>
  /** Gives up a subscription: never refused, it only releases what a decided subscribe gave. */
  readonly unsubscribe: (host: HostSession, uri: string) => Effect.Effect<void, TransportFailure>
  readonly listPrompts: (options?: OperationOptions) => Effect.Effect<ReadonlyArray<Prompt>, TransportFailure>
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
  readonly authenticated?: <A, E>(
    serverId: string,
    options: OperationOptions | undefined,
    effect: Effect.Effect<A, E>
  ) => Effect.Effect<A, E | TransportFailure>
}

/** Builds the forwarder and starts following the servers' notifications; returns it and its stop. */
export const makeFeatureForwarder = (
  deps: ForwarderDeps
): { readonly forwarder: FeatureForwarderShape; readonly stop: () => void } => {
  const { serverIds } = deps
  const features = redactingFeatures(deps.features, () => deps.redactions)
  const routes = new ResourceRoutes(serverIds)
  const levels = new Map<HostSession, LoggingLevel>()
  let appliedLevel: LoggingLevel | undefined

  // Listings are routed on what the server sent, and reach hosts redacted (a redacted URI then simply does not route).
  const redactListed = <A extends object>(
    serverId: string,
    items: ReadonlyArray<A>,
    name: (item: A) => string
  ): ReadonlyArray<A> => items.map((item) => redactJson(item, redactionsFor(deps.redactions, serverId, name(item))))
  // Routes are learnt from all a server lists; a host is shown what the policy lets it read (core's hideDenied).
  const authenticated = <A, E>(serverId: string, options: OperationOptions | undefined, effect: Effect.Effect<A, E>) =>
    deps.authenticated === undefined ? effect : deps.authenticated(serverId, options, effect)
  const fetchResources = (serverId: string, options?: OperationOptions) =>
    Effect.tap(
      authenticated(serverId, options, features.listResources(serverId)),
      (resources) => Effect.sync(() => routes.listed(serverId, resources.map((r) => r.uri)))
    )
  const fetchTemplates = (serverId: string, options?: OperationOptions) =>
    Effect.tap(
      authenticated(serverId, options, features.listResourceTemplates(serverId)),
      (templates) => Effect.sync(() => routes.templates(serverId, templates.map((t) => t.uriTemplate)))
    )
  const readOf = (serverId: string, uri: string): PolicyOperation => ({ _tag: "ReadResource", serverId, uri })
  const shownOf = <A extends object>(
    serverId: string,
    items: ReadonlyArray<A>,
    uriOf: (item: A) => string,
    options: OperationOptions | undefined
  ) => deps.calls.visibleOperations(items, (item) => readOf(serverId, uriOf(item)), options)
  const listResourcesOf = (options: OperationOptions | undefined) => (serverId: string) =>
    Effect.map(
      Effect.flatMap(fetchResources(serverId, options), (resources) =>
        shownOf(serverId, resources, (r) => r.uri, options)),
      (resources) =>
        redactListed(serverId, resources, (r) =>
          r.uri).map((r) => exposeUriAt(deps.prompts, serverId, r, "uri"))
    )
  const listTemplatesOf = (options: OperationOptions | undefined) => (serverId: string) =>
    Effect.map(
      Effect.flatMap(
        fetchTemplates(serverId, options),
        (templates) => shownOf(serverId, templates, (t) => t.uriTemplate, options)
      ),
      (templates) =>
        redactListed(serverId, templates, (t) => t.uriTemplate).map((t) =>
          exposeUriAt(deps.prompts, serverId, t, "uriTemplate")
        )
    )

  /** Routes by what is known; on a miss, asks every reachable server again once. */
  const routed = <A>(find: () => A | undefined, what: Unrouted["what"]) =>
    Effect.suspend(() => {
      const known = find()
      if (known !== undefined) return Effect.succeed(known)
      const refresh = Effect.forEach(serverIds, (id) =>
        Effect.ignore(Effect.all([fetchResources(id), fetchTemplates(id)])), {
        concurrency: "unbounded",
        discard: true
      })
      return Effect.flatMap(refresh, () => {
        const found = find()
        return found === undefined ? Effect.fail(new Unrouted({ what })) : Effect.succeed(found)
      })
    })

  // A URI goes to the server that listed it (or linked it in a result). With one server that offers
  // resources, a URI it never listed is still its own (servers serve and subscribe to URIs they do
  // not list): it answers for it itself. With several, an unseen URI is not found.
  const sole = serverIds.length === 1 ? serverIds[0] : undefined
  const routeResource = (uri: string) =>
    Effect.catchTag(routed(() => routes.route(uri), "resource"), "Unrouted", (unrouted) =>
      sole === undefined
        ? Effect.fail(unrouted)
        : Effect.flatMap(Effect.orElseSucceed(features.capabilities(sole), () => ({})), (offered) =>
          "resources" in offered && offered.resources !== undefined ? Effect.succeed(sole) : Effect.fail(unrouted)))

  /** The server of a host-side resource URI and the URI it knows: a namespaced `ui://` URI by its prefix, any other by the routes. */
  const routedUri = (
    uri: string,
    what: Unrouted["what"] = "resource"
  ): Effect.Effect<UiTarget, TransportFailure | Unrouted> => {
    const ui = resolveUiUri(deps.prompts, uri)
    if (ui === "Unnamed") return Effect.fail(new Unrouted({ what }))
    if (ui !== undefined) return Effect.succeed(ui)
    return Effect.map(
      what === "resource" ? routeResource(uri) : routed(() => routes.templateOwner(uri), what),
      (serverId) => ({ serverId, uri })
    )
  }

  const applyLevel = () => {
    const level = mostVerbose(levels.values())
    if (level === undefined || level === appliedLevel) return Effect.void
    appliedLevel = level
    return Effect.forEach(serverIds, (id) => features.setLoggingLevel(id, level), {
      concurrency: "unbounded",
      discard: true
    })
  }

  const subscriptions = makeSubscriptions(features)
  const stop = features.onNotification(notificationRouter(deps, subscriptions, (host) => levels.get(host)))

  const forwarder: FeatureForwarderShape = {
    listResources: (options) => mergedListing("resources/list", serverIds, listResourcesOf(options)),
    listResourceTemplates: (options) => mergedListing("resources/templates/list", serverIds, listTemplatesOf(options)),
    readResource: (uri, options) =>
      Effect.flatMap(
        routedUri(uri),
        (target) =>
          Effect.map(deps.calls.readResource(target.serverId, target.uri, options), (contents) => {
            const read = redactResourceContents(contents, redactionsFor(deps.redactions, target.serverId, target.uri))
            const shown = exposeContentsUris(deps.prompts, target.serverId, read.contents)
            return shown === read.contents ? read : { ...read, contents: shown }
          })
      ),
    // Every host's subscription is decided, also one to a URI another host follows already.
    subscribe: (host, uri, options) =>
      Effect.flatMap(routedUri(uri), (target) =>
        Effect.andThen(
          deps.calls.decideRead("resources/subscribe", target.serverId, target.uri, options),
          subscriptions.follow(host, uri, target)
        )),
    unsubscribe: subscriptions.release,
    listPrompts: (options) =>
      mergedListing(
        "prompts/list",
        serverIds,
        (serverId) =>
          Effect.map(
            Effect.flatMap(authenticated(serverId, options, features.listPrompts(serverId)), (prompts) => {
              for (const prompt of prompts) deps.prompts.own(serverId, prompt.name)
              return deps.calls.visibleOperations(
                prompts,
                (prompt) => ({ _tag: "GetPrompt", serverId, name: prompt.name, args: {} }),
                options
              )
            }),
            (prompts) =>
              prompts.flatMap((prompt) => {
                const listed = redactDefinition(
                  { ...prompt, name: deps.prompts.expose(serverId, prompt.name) },
                  redactionsFor(deps.redactions, serverId, prompt.name)
                )
                return listed === undefined ? [] : [listed]
              })
          )
      ),
    getPrompt: (name, args, options) => {
      const target = deps.prompts.resolve(name)
      if (target === undefined) return Effect.fail(new Unrouted({ what: "prompt" }))
      return Effect.map(
        deps.calls.getPrompt(target.serverId, target.name, args, options),
        (prompt) => redactPrompt(prompt, redactionsFor(deps.redactions, target.serverId, target.name))
      )
    },
    complete: (params, options) => {
      const ref = params.ref
      if (ref.type === "ref/prompt") {
        const target = deps.prompts.resolve(ref.name)
        if (target === undefined) return Effect.fail(new Unrouted({ what: "reference" }))
        // The get it leads to: the arguments known so far, and the one being completed.
        const args: JsonObject = { ...params.context?.arguments, [params.argument.name]: params.argument.value }
        return Effect.andThen(
          deps.calls.decidePrompt(target.serverId, target.name, args, options),
          authenticated(
            target.serverId,
            options,
            features.complete(target.serverId, { ...params, ref: { ...ref, name: target.name } })
          )
        )
      }
      return Effect.flatMap(
        routedUri(ref.uri, "reference"),
        (target) =>
          Effect.andThen(
            deps.calls.decideRead("completion/complete", target.serverId, target.uri, options),
            authenticated(
              target.serverId,
              options,
              features.complete(target.serverId, { ...params, ref: { ...ref, uri: target.uri } })
            )
          )
      )
    },
    setLoggingLevel: (host, level) =>
      Effect.suspend(() => {
        levels.set(host, level)
        return applyLevel()
      }),
    noteResult: (serverId, content) => {
      const uris = linkedUris(content)
      if (uris.length > 0) routes.linked(serverId, uris)
    },
    hostClosed: (host) => {
      levels.delete(host)
      deps.features.releaseHost(host)
      const uris = subscriptions.followedBy(host)
      if (uris.length > 0) {
        deps.fork(Effect.forEach(uris, (uri) => Effect.ignore(subscriptions.release(host, uri)), { discard: true }))
      }
    }
  }
  return { forwarder, stop }
}
