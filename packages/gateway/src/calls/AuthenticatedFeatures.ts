/**
 * The requests of the forwarder that go to a server with the downstream credential of the
 * operation's principal (CredentialTransport.ts): listings and completions. Without a credential
 * runner they go without one (a per-principal server's are then refused).
 */
import type { OperationOptions, TransportFailure } from "@interlock/core"
import type { HubFeaturesShape } from "@interlock/mcp"
import type {
  CompleteRequestParams,
  CompleteResult,
  Prompt,
  Resource,
  ResourceTemplateType
} from "@modelcontextprotocol/server"
import type { Effect } from "effect"

/** Runs a request to a server with the downstream credential of the operation's principal. */
export type Authenticated = <A, E>(
  serverId: string,
  options: OperationOptions | undefined,
  effect: Effect.Effect<A, E>
) => Effect.Effect<A, E | TransportFailure>

/** A listing of one server, on behalf of an operation. */
type Listing<A> = (serverId: string, options?: OperationOptions) => Effect.Effect<ReadonlyArray<A>, TransportFailure>

/** The hub's features the forwarder sends authenticated. */
export interface AuthenticatedFeaturesShape {
  readonly listResources: Listing<Resource>
  readonly listResourceTemplates: Listing<ResourceTemplateType>
  readonly listPrompts: Listing<Prompt>
  readonly complete: (
    serverId: string,
    params: CompleteRequestParams,
    options?: OperationOptions
  ) => Effect.Effect<CompleteResult, TransportFailure>
}

/** `features`' requests, each run by `deps.authenticated` when there is one (read on each request). */
export const authenticatedFeatures = (
  features: Pick<HubFeaturesShape, "listResources" | "listResourceTemplates" | "listPrompts" | "complete">,
  deps: { readonly authenticated?: Authenticated | undefined }
): AuthenticatedFeaturesShape => {
  const sent = <A, E>(serverId: string, options: OperationOptions | undefined, effect: Effect.Effect<A, E>) =>
    deps.authenticated === undefined ? effect : deps.authenticated(serverId, options, effect)
  return {
    listResources: (serverId, options) => sent(serverId, options, features.listResources(serverId)),
    listResourceTemplates: (serverId, options) => sent(serverId, options, features.listResourceTemplates(serverId)),
    listPrompts: (serverId, options) => sent(serverId, options, features.listPrompts(serverId)),
    complete: (serverId, params, options) => sent(serverId, options, features.complete(serverId, params))
  }
}
