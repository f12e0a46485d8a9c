/** What a hook knows about the call besides its arguments. */
import { Schema } from "effect"
import { Principal } from "../model/Principal.ts"

/** The context handed to every hook: which client, which server, its protocol era, host data, caller. */
export class HookContext extends Schema.Class<HookContext>("@interlock/core/HookContext")({
  /** The name of the Interlock client (from `Interlock.layer({ client })`). */
  client: Schema.String,
  serverId: Schema.String,
  /** The protocol revision the server speaks, when the transport knows it. */
  era: Schema.optional(Schema.String),
  /** Host data passed with the call (`options.assigns`). */
  assigns: Schema.Record(Schema.String, Schema.Unknown),
  /** Who is calling (`options.principal`). */
  principal: Schema.optional(Principal)
}) {}
