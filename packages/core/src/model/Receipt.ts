/**
 * Receipts: for one call, every hook that ran and the policy decision, so that "allowed" and
 * "never ran" cannot be confused. Returned with every result and every error.
 */
import { Schema } from "effect"
import { statusesOf } from "../hooks/EventRegistry.ts"
import { HOOK_EVENT_ROWS, HOOK_EVENTS } from "../hooks/HookEvent.ts"
import { makeTrusted } from "../internal/Trusted.ts"

/** How a hook ended: the status its verdict records (see the event rows), or `failed` with a failure kind. */
export const HookStatus = Schema.Literals([...statusesOf(HOOK_EVENT_ROWS), "failed"])

/** How a hook ended. */
export type HookStatus = typeof HookStatus.Type

/** Why a hook failed. Never what it raised. */
export const FailureKind = Schema.Literals(["raise", "exit", "timeout", "bad_return"])

/** Why a hook failed. */
export type FailureKind = typeof FailureKind.Type

/** One hook run within a call (a plain struct: receipts are built on the hot path). */
export const HookRun = Schema.Struct({
  id: Schema.String,
  event: Schema.Literals(HOOK_EVENTS),
  status: HookStatus,
  failure: Schema.optional(FailureKind),
  /** True when a failure was ignored (an observer, or onError "ignore") and the call went on. */
  ignored: Schema.Boolean,
  durationMs: Schema.Number,
  /** True when the hook missed its deadline and did not yield to interruption: it was left running, supervised. */
  detached: Schema.optional(Schema.Boolean),
  /** What a Continue noted: what the hook saw without acting on it (an audit-mode interceptor's verdict, say). */
  note: Schema.optional(Schema.String)
})

/** One hook run within a call. */
export type HookRun = typeof HookRun.Type

/** The policy's answer, as recorded. */
export const PolicyRecord = Schema.Struct({
  decision: Schema.Literals(["allow", "deny", "ask"]),
  /** The rule that decided, or absent for a default or custom decision. */
  rule: Schema.optional(Schema.String)
})

/** The policy's answer, as recorded. */
export type PolicyRecord = typeof PolicyRecord.Type

/** The approval's answer, as recorded. */
export const ApprovalRecord = Schema.Struct({
  decision: Schema.Literals(["allow", "deny"]),
  /**
   * approver: a person or service answered; console, elicitation: a person answered there;
   * remembered: an earlier grant; timeout, error, none: denied.
   */
  source: Schema.Literals(["approver", "console", "elicitation", "remembered", "timeout", "error", "none"]),
  /** Who answered (a principal id), when the approver said so. */
  by: Schema.optional(Schema.String)
})

/** The approval's answer, as recorded. */
export type ApprovalRecord = typeof ApprovalRecord.Type

/** How the call ended. */
export const CallOutcome = Schema.Literals(["ok", "tool_error", "halted", "recovered", "withheld", "denied", "failed"])

/** How the call ended. */
export type CallOutcome = typeof CallOutcome.Type

/** A step of a call that can be detached at its deadline. */
export const DetachedStep = Schema.Literals(["policy", "request"])

/** A step of a call that can be detached at its deadline. */
export type DetachedStep = typeof DetachedStep.Type

/** Where a pipeline-made receipt keeps its final call. */
const FinalCall: unique symbol = Symbol.for("@interlock/core/Receipt/finalCall")

/** Everything Interlock decided about one call. Holds no arguments and no results. */
export class Receipt extends Schema.Class<Receipt>("@interlock/core/Receipt")({
  callId: Schema.String,
  serverId: Schema.String,
  name: Schema.String,
  /** Digest of the final call (after rewrites), when the call got that far. */
  digest: Schema.optional(Schema.String),
  hooks: Schema.Array(HookRun),
  policy: Schema.optional(PolicyRecord),
  approval: Schema.optional(ApprovalRecord),
  /** True when the request reached the transport. */
  sent: Schema.Boolean,
  outcome: CallOutcome,
  /** Set when the tool's definition differs from the one pinned at first sight. */
  toolChanged: Schema.optional(Schema.Boolean),
  /**
   * What missed its deadline and did not yield to interruption, so it was left running (supervised):
   * the custom policy's decision, the transport request. Absent when nothing was.
   */
  detached: Schema.optional(Schema.Array(DetachedStep))
}) {
  /** A pipeline-made receipt's final call (set by {@link makeReceipt}; a symbol: not enumerated, not encoded). */
  declare readonly [FinalCall]?: { readonly digest: string }

  /**
   * Digest of the final call (after rewrites), when the call got that far. A receipt the pipeline
   * made reads it from its final call on first access (see {@link makeReceipt}): computing it
   * (canonical JSON plus SHA-256) for every call would cost more than a call's hooks. One made or
   * decoded with a digest keeps that one, as an own field.
   */
  // The struct declares `digest`; this accessor pair serves it (the constructor assigns it through the setter).
  override get digest(): string | undefined {
    return this[FinalCall]?.digest
  }

  // Constructing or decoding a receipt with a digest assigns it: keep it as an own field, which shadows the getter.
  override set digest(digest: string | undefined) {
    Object.defineProperty(this, "digest", { value: digest, enumerable: true, writable: false, configurable: true })
  }

  /** JSON with the digest included, also when it is computed lazily (see {@link makeReceipt}). */
  toJSON(): unknown {
    return { ...this, digest: this.digest }
  }
}

/** Builds a receipt whose digest is the given call's, computed when first read. */
export const makeReceipt = (
  fields: Omit<ConstructorParameters<typeof Receipt>[0], "digest">,
  call: { readonly digest: string }
): Receipt => {
  const receipt = makeTrusted(Receipt, fields)
  Object.defineProperty(receipt, FinalCall, { value: call })
  return receipt
}
