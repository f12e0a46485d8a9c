/**
 * The interceptor host's typed errors. Their details are written by Interlock: never a payload, and
 * never the text of a server's error (which may quote what it was given), only its code.
 */
import { Schema } from "effect"

/** How an invocation failed (SEP §Execution Model: a crash, a timeout, an error answer, or junk). */
export const InterceptorFailureKind = Schema.Literals(["transport", "timeout", "error", "junk"])

/** How an invocation failed. */
export type InterceptorFailureKind = typeof InterceptorFailureKind.Type

/** One `interceptor/invoke` got no usable answer. */
export class InterceptorFailed extends Schema.TaggedError<InterceptorFailed>()("InterceptorFailed", {
  serverId: Schema.String,
  interceptor: Schema.String,
  kind: InterceptorFailureKind,
  detail: Schema.String
}) {
  override get message(): string {
    return `interceptor ${JSON.stringify(this.interceptor)} on ${this.serverId} failed (${this.kind}): ${this.detail}`
  }
}

/** An interceptor server could not be read at start: unreachable, `interceptors/list` refused or junk, or a clash. */
export class InterceptorsUnavailable extends Schema.TaggedError<InterceptorsUnavailable>()("InterceptorsUnavailable", {
  serverId: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `interceptor server ${this.serverId}: ${this.detail}`
  }
}
