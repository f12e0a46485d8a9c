/**
 * Which server answers a host-side resource URI: a namespaced `ui://` URI by its prefix (AppUris.ts),
 * any other by the ResourceRoutes the servers' listings and tool results filled, asking every server
 * again once on a miss. With one server that offers resources, a URI it never listed is its own.
 */
import type { OperationOptions, TransportFailure } from "@interlock/core"
import type { HubFeaturesShape } from "@interlock/mcp"
import { Effect, Schema } from "effect"
import { resolveUiUri, type UiTarget } from "../governance/AppUris.ts"
import type { Namespace } from "../governance/Namespace.ts"
import type { AuthenticatedFeaturesShape } from "./AuthenticatedFeatures.ts"
import { linkedUris, ResourceRoutes } from "./ResourceRoutes.ts"

/** No server claims what the host named (a resource URI, a prompt, a completion reference). */
export class Unrouted extends Schema.TaggedError<Unrouted>()("Unrouted", {
  what: Schema.Literals(["resource", "prompt", "reference"])
}) {
  override get message(): string {
    return `no server of this gateway offers this ${this.what}`
  }
}

/** What the routing reads of the gateway. */
export interface RoutingDeps {
  readonly serverIds: ReadonlyArray<string>
  /** Resolves the `ui://` URIs shown to hosts. */
  readonly prompts: Namespace
}

/** The routing of one gateway's resource URIs. */
export interface ResourceRoutingShape {
  /** Lists a server's resources, learning their routes. */
  readonly fetchResources: AuthenticatedFeaturesShape["listResources"]
  /** Lists a server's URI templates, learning their routes. */
  readonly fetchTemplates: AuthenticatedFeaturesShape["listResourceTemplates"]
  /** The server of a host-side URI (a resource's, or a completion reference's template) and the URI it knows. */
  readonly routedUri: (uri: string, what?: Unrouted["what"]) => Effect.Effect<UiTarget, TransportFailure | Unrouted>
  /** Remembers the resources a tool result of `serverId` pointed at. */
  readonly noteResult: (serverId: string, content: ReadonlyArray<unknown>) => void
}

/** Routing over `deps`' servers, learning from what they list (`sent`) and asking one's capabilities (`features`). */
export const makeResourceRouting = (
  deps: RoutingDeps,
  features: Pick<HubFeaturesShape, "capabilities">,
  sent: Pick<AuthenticatedFeaturesShape, "listResources" | "listResourceTemplates">
): ResourceRoutingShape => {
  const { serverIds } = deps
  const routes = new ResourceRoutes(serverIds)
  const fetchResources = (serverId: string, options?: OperationOptions) =>
    Effect.tap(
      sent.listResources(serverId, options),
      (resources) => Effect.sync(() => routes.listed(serverId, resources.map((r) => r.uri)))
    )
  const fetchTemplates = (serverId: string, options?: OperationOptions) =>
    Effect.tap(
      sent.listResourceTemplates(serverId, options),
      (templates) => Effect.sync(() => routes.templates(serverId, templates.map((t) => t.uriTemplate)))
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

  return {
    fetchResources,
    fetchTemplates,
    routedUri: (uri, what = "resource") => {
      const ui = resolveUiUri(deps.prompts, uri)
      if (ui === "Unnamed") return Effect.fail(new Unrouted({ what }))
      if (ui !== undefined) return Effect.succeed(ui)
      return Effect.map(
        what === "resource" ? routeResource(uri) : routed(() => routes.templateOwner(uri), what),
        (serverId) => ({ serverId, uri })
      )
    },
    noteResult: (serverId, content) => {
      const uris = linkedUris(content)
      if (uris.length > 0) routes.linked(serverId, uris)
    }
  }
}
