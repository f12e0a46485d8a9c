/**
 * The gateway's shared state (used approval states, and on Postgres the rate-limit buckets,
 * pending approvals and pins) could not be read or written. Carries no call data; whoever meets it
 * refuses the call (fail closed).
 */
import { Schema } from "effect"

/** A shared-state operation failed; `detail` names the store's reason, never a key's contents. */
export class StateError extends Schema.TaggedError<StateError>()("StateError", {
  operation: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `shared state ${this.operation} failed: ${this.detail}`
  }
}
