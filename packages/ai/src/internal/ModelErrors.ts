/**
 * Why the adapters refused a model call or its answer: a hook said so, or a hook failed (its kind only: what a hook
 * raised goes nowhere). Both are thrown into the framework, which rejects its call with them.
 */
import { FailureKind } from "@interlock/core"
import { Schema } from "effect"

/** A beforeModel hook denied the model call. */
export class ModelDenied extends Schema.TaggedError<ModelDenied>()("ModelDenied", {
  hookId: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `the model call was denied by hook ${this.hookId}: ${this.reason}`
  }
}

/** A model-level hook failed, so the model call or its answer is refused (fail closed). */
export class ModelHookFailed extends Schema.TaggedError<ModelHookFailed>()("ModelHookFailed", {
  event: Schema.String,
  hookId: Schema.String,
  kind: FailureKind
}) {
  override get message(): string {
    return `${this.event} hook ${this.hookId} failed (${this.kind}), so the model call is refused`
  }
}

/** The error for a hook of `event` that failed as `end` says. */
export const hookFailed = (
  event: string,
  end: { readonly hookId: string; readonly kind: ModelHookFailed["kind"] }
): ModelHookFailed => new ModelHookFailed({ event, hookId: end.hookId, kind: end.kind })
