/** The typed errors of @interlock/cedar. None carries a call's arguments. */
import { Schema } from "effect"

/** The Cedar WASM module could not be loaded, or failed while building the policy. */
export class CedarWasmFailed extends Schema.TaggedError<CedarWasmFailed>()("CedarWasmFailed", {
  detail: Schema.String
}) {
  override get message(): string {
    return `Cedar failed: ${this.detail}`
  }
}

/**
 * A Cedar policy set (or schema) that does not parse or validate. `source` is the file it came
 * from, when known; `line` and `column` (1-based) point into it.
 */
export class CedarPolicyInvalid extends Schema.TaggedError<CedarPolicyInvalid>()("CedarPolicyInvalid", {
  source: Schema.optional(Schema.String),
  line: Schema.optional(Schema.Number),
  column: Schema.optional(Schema.Number),
  /** The policy's id (its `@id`, else Cedar's `policyN`), when one policy is at fault. */
  policyId: Schema.optional(Schema.String),
  detail: Schema.String
}) {
  override get message(): string {
    const at = this.line === undefined
      ? (this.source ?? "policy")
      : `${this.source ?? "policy"}:${this.line}:${this.column ?? 1}`
    return `${at}: ${this.policyId === undefined ? "" : `policy ${this.policyId}: `}${this.detail}`
  }
}

/** Any error of building a Cedar policy. */
export type CedarError = CedarWasmFailed | CedarPolicyInvalid
