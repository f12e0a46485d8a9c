/**
 * The resources, URI templates and prompts a host is shown, merged across servers: prompt names
 * namespaced like tools, resource URIs unchanged but MCP Apps' `ui://` ones (namespaced by AppUris.ts),
 * each item redacted, and with `hideDenied` only what the policy lets the host read or get.
 */
import type { OperationOptions, PolicyOperation, TransportFailure } from "@interlock/core"
import type { Prompt, Resource, ResourceTemplateType } from "@modelcontextprotocol/server"
import { Effect } from "effect"
import { exposeUriAt } from "../governance/AppUris.ts"
import { redactDefinition } from "../governance/ContentRedaction.ts"
import type { Namespace } from "../governance/Namespace.ts"
import { type Redaction, redactionsFor, redactJson } from "../governance/Redactor.ts"
import type { AuthenticatedFeaturesShape } from "./AuthenticatedFeatures.ts"
import type { GatewayCallsShape } from "./GatewayCalls.ts"
import { mergedListing } from "./MergedListing.ts"
import type { ResourceRoutingShape } from "./ResourceRouting.ts"

/** What the listings are shown by. */
export interface ListingDeps {
  readonly serverIds: ReadonlyArray<string>
  readonly calls: Pick<GatewayCallsShape, "visibleOperations">
  /** Prompt names, and `ui://` URIs, toward the host. */
  readonly prompts: Namespace
  /** The redactions in force (read on each use: a reload may replace them). */
  readonly redactions: ReadonlyArray<Redaction>
}

/** The listings a host is shown. */
export interface FeatureListingsShape {
  readonly listResources: (options?: OperationOptions) => Effect.Effect<ReadonlyArray<Resource>, TransportFailure>
  readonly listResourceTemplates: (
    options?: OperationOptions
  ) => Effect.Effect<ReadonlyArray<ResourceTemplateType>, TransportFailure>
  readonly listPrompts: (options?: OperationOptions) => Effect.Effect<ReadonlyArray<Prompt>, TransportFailure>
}

/** The listings as the servers send them (resources and templates learnt as routes), shown as `deps` say. */
export const makeFeatureListings = (
  deps: ListingDeps,
  routing: Pick<ResourceRoutingShape, "fetchResources" | "fetchTemplates">,
  sent: Pick<AuthenticatedFeaturesShape, "listPrompts">
): FeatureListingsShape => {
  const { serverIds } = deps
  // Listings are routed on what the server sent, and reach hosts redacted (a redacted URI then simply does not route).
  const redactListed = <A extends object>(
    serverId: string,
    items: ReadonlyArray<A>,
    name: (item: A) => string
  ): ReadonlyArray<A> => items.map((item) => redactJson(item, redactionsFor(deps.redactions, serverId, name(item))))
  // Routes are learnt from all a server lists; a host is shown what the policy lets it read (core's hideDenied).
  const readOf = (serverId: string, uri: string): PolicyOperation => ({ _tag: "ReadResource", serverId, uri })
  const shownOf = <A extends object>(
    serverId: string,
    items: ReadonlyArray<A>,
    uriOf: (item: A) => string,
    options: OperationOptions | undefined
  ) => deps.calls.visibleOperations(items, (item) => readOf(serverId, uriOf(item)), options)
  const listResourcesOf = (options: OperationOptions | undefined) => (serverId: string) =>
    Effect.map(
      Effect.flatMap(routing.fetchResources(serverId, options), (resources) =>
        shownOf(serverId, resources, (r) => r.uri, options)),
      (resources) =>
        redactListed(serverId, resources, (r) =>
          r.uri).map((r) => exposeUriAt(deps.prompts, serverId, r, "uri"))
    )
  const listTemplatesOf = (options: OperationOptions | undefined) => (serverId: string) =>
    Effect.map(
      Effect.flatMap(
        routing.fetchTemplates(serverId, options),
        (templates) => shownOf(serverId, templates, (t) => t.uriTemplate, options)
      ),
      (templates) =>
        redactListed(serverId, templates, (t) => t.uriTemplate).map((t) =>
          exposeUriAt(deps.prompts, serverId, t, "uriTemplate")
        )
    )
  const listPromptsOf = (options: OperationOptions | undefined) => (serverId: string) =>
    Effect.map(
      Effect.flatMap(sent.listPrompts(serverId, options), (prompts) => {
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

  return {
    listResources: (options) => mergedListing("resources/list", serverIds, listResourcesOf(options)),
    listResourceTemplates: (options) => mergedListing("resources/templates/list", serverIds, listTemplatesOf(options)),
    listPrompts: (options) => mergedListing("prompts/list", serverIds, listPromptsOf(options))
  }
}
