/**
 * The hub's features beyond tools as the FeatureForwarder sees them, with every redaction of the
 * config applied (whatever its matcher) to what a server writes there outside a listing or a read:
 * the text of its errors (listings, subscriptions, completion, logging level) and its completion
 * values. Listings, reads and prompts are redacted by the forwarder itself, entry by entry.
 */
import type { TransportFailure } from "@interlock/core"
import type { HubFeaturesShape } from "@interlock/mcp"
import { Effect } from "effect"
import { redactFailure } from "./RedactingTransport.ts"
import { type Redaction, redactJson } from "./Redactor.ts"

/** Wraps the hub's features so that their failures and completion results pass the redactions (those in force then). */
export const redactingFeatures = (
  inner: HubFeaturesShape,
  redactions: () => ReadonlyArray<Redaction>
): HubFeaturesShape => {
  const clean = <A>(effect: Effect.Effect<A, TransportFailure>): Effect.Effect<A, TransportFailure> =>
    Effect.mapError(effect, (error) => redactFailure(error, redactions()))
  return {
    capabilities: (serverId) => clean(inner.capabilities(serverId)),
    listResources: (serverId) => clean(inner.listResources(serverId)),
    listResourceTemplates: (serverId) => clean(inner.listResourceTemplates(serverId)),
    listPrompts: (serverId) => clean(inner.listPrompts(serverId)),
    complete: (serverId, params) =>
      Effect.map(clean(inner.complete(serverId, params)), (result) => redactJson(result, redactions())),
    subscribe: (serverId, uri) => clean(inner.subscribe(serverId, uri)),
    unsubscribe: (serverId, uri) => clean(inner.unsubscribe(serverId, uri)),
    setLoggingLevel: (serverId, level) => clean(inner.setLoggingLevel(serverId, level)),
    releaseHost: inner.releaseHost,
    onNotification: inner.onNotification
  }
}
