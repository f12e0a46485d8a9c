/**
 * A host's completion/complete, decided before it reaches the server: a prompt argument's as the get
 * of that prompt with the arguments known so far, a template's as the read of its URI (both audited).
 * The reference goes to its server under the name or URI that server knows.
 */
import type { JsonObject, OperationOptions } from "@interlock/core"
import type { CompleteRequestParams } from "@modelcontextprotocol/server"
import { Effect } from "effect"
import type { Namespace } from "../governance/Namespace.ts"
import type { AuthenticatedFeaturesShape } from "./AuthenticatedFeatures.ts"
import type { GatewayCallsShape } from "./GatewayCalls.ts"
import { type ResourceRoutingShape, Unrouted } from "./ResourceRouting.ts"

/** What completions are decided by. */
export interface CompletionDeps {
  readonly calls: Pick<GatewayCallsShape, "decidePrompt" | "decideRead">
  /** Resolves the host-side prompt names. */
  readonly prompts: Namespace
}

/** Completes `params` on its server (through `routing` for a template), once decided. */
export const makeCompletions = (
  deps: CompletionDeps,
  routing: Pick<ResourceRoutingShape, "routedUri">,
  sent: Pick<AuthenticatedFeaturesShape, "complete">
) =>
(params: CompleteRequestParams, options?: OperationOptions) => {
  const ref = params.ref
  if (ref.type === "ref/prompt") {
    const target = deps.prompts.resolve(ref.name)
    if (target === undefined) return Effect.fail(new Unrouted({ what: "reference" }))
    // The get it leads to: the arguments known so far, and the one being completed.
    const args: JsonObject = { ...params.context?.arguments, [params.argument.name]: params.argument.value }
    return Effect.andThen(
      deps.calls.decidePrompt(target.serverId, target.name, args, options),
      sent.complete(target.serverId, { ...params, ref: { ...ref, name: target.name } }, options)
    )
  }
  return Effect.flatMap(
    routing.routedUri(ref.uri, "reference"),
    (target) =>
      Effect.andThen(
        deps.calls.decideRead("completion/complete", target.serverId, target.uri, options),
        sent.complete(target.serverId, { ...params, ref: { ...ref, uri: target.uri } }, options)
      )
  )
}
