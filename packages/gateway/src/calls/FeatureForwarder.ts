/**
 * The FeatureForwarder: every MCP feature beyond tools, between the gateway's hosts and its
 * servers. Listings are merged across servers (prompt names namespaced like tools, resource URIs
 * unchanged and routed by ResourceRoutes, but MCP Apps' `ui://` URIs, namespaced like prompts by
 * AppUris.ts); reads and gets pass core's gates (resourceRead and
 * promptGet hooks) and the config's redactions; subscriptions are shared, so a server sees one
 * subscription however many hosts follow a URI; the logging level a server gets is the most
 * verbose one any host asked for. Server notifications fan out to the hosts that want them.
 */
import type { JsonObject, OperationOptions, PromptResult, ResourceContents, TransportFailure } from "@interlock/core"
import type { HubFeaturesShape, HubNotification } from "@interlock/mcp"
import type {
  CompleteRequestParams,
  CompleteResult,
  LoggingLevel,
  Prompt,
  Resource,
  ResourceTemplateType
} from "@modelcontextprotocol/server"
import { Effect, Schema } from "effect"
import { exposeContentsUris, exposeUiUri, exposeUriAt, resolveUiUri, type UiTarget } from "../governance/AppUris.ts"
import { redactDefinition, redactPrompt, redactResourceContents } from "../governance/ContentRedaction.ts"
import type { Namespace } from "../governance/Namespace.ts"
import { redactingFeatures } from "../governance/RedactingFeatures.ts"
import { type Redaction, redactionsFor, redactJson } from "../governance/Redactor.ts"
import type { GatewayCallsShape, ReadFailure } from "./GatewayCalls.ts"
import type { HostSession, HostSessionsShape } from "./HostSessions.ts"
import { belowLevel, mostVerbose } from "./LogLevels.ts"
import { mergedListing } from "./MergedListing.ts"
import { linkedUris, ResourceRoutes } from "./ResourceRoutes.ts"

/** No server claims what the host named (a resource URI, a prompt, a completion reference). */
export class Unrouted extends Schema.TaggedError<Unrouted>()("Unrouted", {
  what: Schema.Literals(["resource", "prompt", "reference"])
}) {
  override get message(): string {
    return `no server of this gateway offers this ${this.what}`
  }
}

/** What a read or get can fail with (a 2026-07-28 host's may end InputRequired or StateRefused: GatewayCalls relays it). */
export type GateFailure = ReadFailure | Unrouted

/** The service interface the front servers use. */
export interface FeatureForwarderShape {
  readonly listResources: () => Effect.Effect<ReadonlyArray<Resource>, TransportFailure>
  readonly listResourceTemplates: () => Effect.Effect<ReadonlyArray<ResourceTemplateType>, TransportFailure>
  readonly readResource: (uri: string, options: OperationOptions) => Effect.Effect<ResourceContents, GateFailure>
  readonly subscribe: (host: HostSession, uri: string) => Effect.Effect<void, TransportFailure | Unrouted>
  readonly unsubscribe: (host: HostSession, uri: string) => Effect.Effect<void, TransportFailure>
  readonly listPrompts: () => Effect.Effect<ReadonlyArray<Prompt>, TransportFailure>
  readonly getPrompt: (
    name: string,
    args: JsonObject,
    options: OperationOptions
  ) => Effect.Effect<PromptResult, GateFailure>
  readonly complete: (params: CompleteRequestParams) => Effect.Effect<CompleteResult, TransportFailure | Unrouted>
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
}

/** Builds the forwarder and starts following the servers' notifications; returns it and its stop. */
export const makeFeatureForwarder = (
  deps: ForwarderDeps
): { readonly forwarder: FeatureForwarderShape; readonly stop: () => void } => {
  const { serverIds, hosts } = deps
  const features = redactingFeatures(deps.features, () => deps.redactions)
  const routes = new ResourceRoutes(serverIds)
  // By the URI the host subscribed to; `uri` is the one the server knows (they differ for a namespaced `ui://` URI).
  const subscribers = new Map<
    string,
    { readonly serverId: string; readonly uri: string; readonly hosts: Set<HostSession> }
  >()
  const levels = new Map<HostSession, LoggingLevel>()
  let appliedLevel: LoggingLevel | undefined

  // Listings are routed on what the server sent, and reach hosts redacted (a redacted URI then simply does not route).
  const redactListed = <A extends object>(
    serverId: string,
    items: ReadonlyArray<A>,
    name: (item: A) => string
  ): ReadonlyArray<A> => items.map((item) => redactJson(item, redactionsFor(deps.redactions, serverId, name(item))))
  const listResourcesOf = (serverId: string) =>
    Effect.map(
      Effect.tap(features.listResources(serverId), (resources) =>
        Effect.sync(() => routes.listed(serverId, resources.map((r) => r.uri)))),
      (resources) =>
        redactListed(serverId, resources, (r) =>
          r.uri).map((r) => exposeUriAt(deps.prompts, serverId, r, "uri"))
    )
  const listTemplatesOf = (serverId: string) =>
    Effect.map(
      Effect.tap(features.listResourceTemplates(serverId), (templates) =>
        Effect.sync(() => routes.templates(serverId, templates.map((t) => t.uriTemplate)))),
      (templates) =>
        redactListed(serverId, templates, (t) =>
          t.uriTemplate).map((t) =>
            exposeUriAt(deps.prompts, serverId, t, "uriTemplate")
          )
    )

  /** Routes by what is known; on a miss, asks every reachable server again once. */
  const routed = <A>(find: () => A | undefined, what: Unrouted["what"]) =>
    Effect.suspend(() => {
      const known = find()
      if (known !== undefined) return Effect.succeed(known)
      const refresh = Effect.forEach(serverIds, (id) =>
        Effect.ignore(Effect.all([listResourcesOf(id), listTemplatesOf(id)])), {
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

  const send = (host: HostSession, method: string, params?: Record<string, unknown>) =>
    void host.server.notification(params === undefined ? { method } : { method, params }).catch(() => undefined)

  const onNotification = (notification: HubNotification) => {
    switch (notification.method) {
      case "notifications/resources/updated": {
        const uri = exposeUiUri(deps.prompts, notification.serverId, notification.params.uri)
        const entry = subscribers.get(uri)
        if (entry !== undefined && entry.serverId === notification.serverId) {
          // The URI is the one the hosts subscribed to; anything else the server added passes the redactions.
          const params = redactJson(
            notification.params,
            redactionsFor(deps.redactions, entry.serverId, notification.params.uri)
          )
          for (const host of entry.hosts) send(host, notification.method, { ...params, uri })
        }
        return
      }
      case "notifications/message": {
        const { serverId, params } = notification
        const logger = deps.prompts.prefixed
          ? (params.logger === undefined ? serverId : `${serverId}/${params.logger}`)
          : params.logger
        const message = redactJson(
          logger === undefined ? params : { ...params, logger },
          redactionsFor(deps.redactions, serverId, params.logger ?? "log")
        )
        const owner = hosts.attribute(serverId)
        if (owner._tag === "Ambiguous") {
          // Several hosts' calls are running on that server: whose message this is cannot be told.
          deps.fork(
            Effect.logWarning("a server's log message could not be attributed to one host and was not forwarded").pipe(
              Effect.annotateLogs({ "interlock.server": serverId })
            )
          )
          return
        }
        // A message sent while one host's calls to that server run goes on that host's latest call stream.
        const targets = owner._tag === "Call" ? [owner.call.session] : hosts.all()
        for (const host of targets) {
          if (belowLevel(params.level, levels.get(host))) continue
          if (owner._tag === "Call" && owner.call.notify !== undefined) {
            void owner.call.notify({ method: "notifications/message", params: message }).catch(() => undefined)
          } else send(host, "notifications/message", message)
        }
        return
      }
      default:
        for (const host of hosts.all()) send(host, notification.method)
    }
  }
  const stop = features.onNotification(onNotification)

  const release = (host: HostSession, uri: string) => {
    const entry = subscribers.get(uri)
    if (entry === undefined || !entry.hosts.delete(host) || entry.hosts.size > 0) return Effect.void
    subscribers.delete(uri)
    return features.unsubscribe(entry.serverId, entry.uri)
  }

  const forwarder: FeatureForwarderShape = {
    listResources: () => mergedListing("resources/list", serverIds, listResourcesOf),
    listResourceTemplates: () => mergedListing("resources/templates/list", serverIds, listTemplatesOf),
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
    subscribe: (host, uri) =>
      Effect.flatMap(routedUri(uri), (target) => {
        const entry = subscribers.get(uri)
        if (entry !== undefined) {
          entry.hosts.add(host)
          return Effect.void
        }
        return Effect.tap(features.subscribe(target.serverId, target.uri), () =>
          Effect.sync(() => {
            const now = subscribers.get(uri)
            if (now === undefined) subscribers.set(uri, { ...target, hosts: new Set([host]) })
            else now.hosts.add(host)
          }))
      }),
    unsubscribe: release,
    listPrompts: () =>
      mergedListing(
        "prompts/list",
        serverIds,
        (serverId) =>
          Effect.map(features.listPrompts(serverId), (prompts) =>
            prompts.flatMap((prompt) => {
              deps.prompts.own(serverId, prompt.name)
              const listed = redactDefinition(
                { ...prompt, name: deps.prompts.expose(serverId, prompt.name) },
                redactionsFor(deps.redactions, serverId, prompt.name)
              )
              return listed === undefined ? [] : [listed]
            }))
      ),
    getPrompt: (name, args, options) => {
      const target = deps.prompts.resolve(name)
      if (target === undefined) return Effect.fail(new Unrouted({ what: "prompt" }))
      return Effect.map(
        deps.calls.getPrompt(target.serverId, target.name, args, options),
        (prompt) => redactPrompt(prompt, redactionsFor(deps.redactions, target.serverId, target.name))
      )
    },
    complete: (params) => {
      const ref = params.ref
      if (ref.type === "ref/prompt") {
        const target = deps.prompts.resolve(ref.name)
        if (target === undefined) return Effect.fail(new Unrouted({ what: "reference" }))
        return features.complete(target.serverId, { ...params, ref: { ...ref, name: target.name } })
      }
      return Effect.flatMap(
        routedUri(ref.uri, "reference"),
        (target) => features.complete(target.serverId, { ...params, ref: { ...ref, uri: target.uri } })
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
      const uris = [...subscribers].filter(([, entry]) => entry.hosts.has(host)).map(([uri]) => uri)
      if (uris.length > 0) {
        deps.fork(Effect.forEach(uris, (uri) => Effect.ignore(release(host, uri)), { discard: true }))
      }
    }
  }
  return { forwarder, stop }
}
