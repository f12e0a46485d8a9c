/**
 * Tool pins shared with other hubs, such as the replicas of one gateway: the definition of a tool
 * first pinned by any of them is the pin of all, so a definition that changed is refused
 * everywhere. Optional: a hub built without it pins in memory (ToolPins).
 */
import { Context, type Effect } from "effect"

/** The service interface. */
export interface SharedPinsShape {
  /**
   * Pins, for `serverId`, each tool of `fingerprints` (name to fingerprint) that has no pin yet,
   * atomically (the first pin wins); answers every one's pin. Fails with a reason that carries no
   * tool definition.
   */
  readonly pin: (
    serverId: string,
    fingerprints: ReadonlyMap<string, string>
  ) => Effect.Effect<ReadonlyMap<string, string>, { readonly message: string }>
}

/** Where a hub keeps its pins when they are shared. */
export class SharedPins extends Context.Service<SharedPins, SharedPinsShape>()("@interlock/mcp/SharedPins") {}
