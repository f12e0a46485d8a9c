/** Who is calling: taken from a call's options and handed to hooks and the policy. */
import { Schema } from "effect"

/** The identity behind a call (a user, an agent, a bearer token's owner). */
export class Principal extends Schema.Class<Principal>("@interlock/core/Principal")({
  /** A stable name, used in policy rules and audit rows. */
  id: Schema.String,
  /** Optional roles, for policies that decide by role. */
  roles: Schema.optional(Schema.Array(Schema.String))
}) {}
