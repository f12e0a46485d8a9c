/**
 * Receipts: for one call, every hook that ran and the policy decision, so that "allowed" and
 * "never ran" cannot be confused. Returned with every result and every error.
 */
import { Schema } from "effect"
import { HOOK_EVENTS } from "./HookEvent.ts"

/** How a hook ended: its verdict, or `failed` with a failure kind. */
export const HookStatus = Schema.Literals(["continue", "rewrite", "deny", "halt", "replace", "recover", "failed"])

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
  durationMs: Schema.Number
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
  /** approver: a person or service answered; remembered: an earlier grant; timeout, error, none: denied. */
  source: Schema.Literals(["approver", "remembered", "timeout", "error", "none"])
})

/** The approval's answer, as recorded. */
export type ApprovalRecord = typeof ApprovalRecord.Type

/** How the call ended. */
export const CallOutcome = Schema.Literals(["ok", "tool_error", "halted", "recovered", "withheld", "denied", "failed"])

/** How the call ended. */
export type CallOutcome = typeof CallOutcome.Type

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
  toolChanged: Schema.optional(Schema.Boolean)
}) {}
