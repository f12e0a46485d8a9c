/**
 * The typed errors of the tool-call program. None of them carries what a hook raised, nor the
 * arguments or result of a call: those may hold secrets.
 */
import { Schema } from "effect"
import { HOOK_EVENTS } from "../hooks/HookEvent.ts"
import { FailureKind, Receipt } from "./Receipt.ts"

/** Why a call was denied. */
export const DenyReason = Schema.Union([
  /** A hook returned Deny; `message` is the reason the hook gave. */
  Schema.TaggedStruct("HookDenied", { hookId: Schema.String, message: Schema.String }),
  /** The policy denied; `rule` names the deciding rule, absent for a default or custom decision. */
  Schema.TaggedStruct("PolicyDenied", { rule: Schema.optional(Schema.String), message: Schema.String }),
  /** The policy asked, and the approval was refused, timed out, failed, or had no approver. */
  Schema.TaggedStruct("ApprovalDenied", { message: Schema.String }),
  /** The client's `tools` filter hides the tool. */
  Schema.TaggedStruct("NotExposed", {})
])

/** Why a call was denied. */
export type DenyReason = typeof DenyReason.Type

/** The call was denied by a hook, the policy, an approval, or the tools filter. */
export class Denied extends Schema.TaggedError<Denied>()("Denied", {
  reason: DenyReason,
  receipt: Schema.optional(Receipt)
}) {
  override get message(): string {
    const reason = this.reason
    switch (reason._tag) {
      case "HookDenied":
        return `denied by hook ${reason.hookId}: ${reason.message}`
      case "PolicyDenied":
        return `denied by policy${reason.rule === undefined ? "" : ` rule ${reason.rule}`}: ${reason.message}`
      case "ApprovalDenied":
        return `approval denied: ${reason.message}`
      case "NotExposed":
        return "denied: the tool is not exposed"
    }
  }
}

/** A hook raised, exited, timed out or returned something outside its event's verdicts. */
export class HookFailed extends Schema.TaggedError<HookFailed>()("HookFailed", {
  hookId: Schema.String,
  event: Schema.Literals(HOOK_EVENTS),
  kind: FailureKind,
  receipt: Schema.optional(Receipt)
}) {
  override get message(): string {
    return `hook ${this.hookId} (${this.event}) failed: ${this.kind}`
  }
}

/** The call's own deadline passed before the transport answered. */
export class Timeout extends Schema.TaggedError<Timeout>()("Timeout", {
  millis: Schema.Number,
  receipt: Schema.optional(Receipt)
}) {
  override get message(): string {
    return `the call timed out after ${this.millis} ms`
  }
}

/** The transport could not deliver the request or its answer (spawn, connection, crash, close). */
export class TransportError extends Schema.TaggedError<TransportError>()("TransportError", {
  serverId: Schema.String,
  /** A description written by Interlock or the transport: never arguments or results. */
  detail: Schema.String,
  receipt: Schema.optional(Receipt)
}) {
  override get message(): string {
    return `transport to ${this.serverId} failed: ${this.detail}`
  }
}

/** The server answered with a JSON-RPC error, or with something the protocol does not allow. */
export class ProtocolError extends Schema.TaggedError<ProtocolError>()("ProtocolError", {
  serverId: Schema.String,
  code: Schema.Number,
  detail: Schema.String,
  /**
   * With MissingRequiredClientCapability (-32021): the client capabilities the server said the request needs, by name.
   */
  requiredCapabilities: Schema.optional(Schema.Array(Schema.String)),
  receipt: Schema.optional(Receipt)
}) {
  override get message(): string {
    return `server ${this.serverId} answered with error ${this.code}: ${this.detail}`
  }
}

/** A configuration was rejected when a Layer was built. `path` names the place at fault. */
export class ConfigError extends Schema.TaggedError<ConfigError>()("ConfigError", {
  /** Where: for example `preToolCall[2] (id "audit")` or `policy.rules[4].match`. */
  path: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `invalid config at ${this.path}: ${this.detail}`
  }
}

/** Every error a tool call can end in. */
export type CallError = Denied | HookFailed | Timeout | TransportError | ProtocolError

/** Errors a transport may raise. */
export type TransportFailure = TransportError | ProtocolError
