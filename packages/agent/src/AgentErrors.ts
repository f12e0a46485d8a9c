/**
 * The typed errors of an agent run. None of them carries what a hook raised, a prompt, tool
 * arguments or results, or a provider's response body: those may hold secrets.
 */
import { FailureKind, HookFailed, ProtocolError, TransportError } from "@interlock/core"
import { Schema } from "effect"
import { AGENT_EVENTS } from "./AgentEvent.ts"

/** The model request failed (after retries): HTTP status when there was one, and the failure's kind. */
export class ModelFailed extends Schema.TaggedError<ModelFailed>()("ModelFailed", {
  /** effect/ai's reason tag: RateLimitError, InvalidRequestError, InternalProviderError, NetworkError, ... */
  reason: Schema.String,
  /** The HTTP status of the last attempt, when the provider answered. */
  status: Schema.optional(Schema.Number),
  /** How many requests were made. */
  attempts: Schema.Number
}) {
  override get message(): string {
    return `the model request failed${
      this.status === undefined ? "" : ` with HTTP ${this.status}`
    } (${this.reason}) after ${this.attempts} attempt(s)`
  }
}

/** A model-level hook blocked or denied the run (userPromptSubmit, beforeModel, subagentStart...). */
export class RunBlocked extends Schema.TaggedError<RunBlocked>()("RunBlocked", {
  hookId: Schema.String,
  event: Schema.Literals(AGENT_EVENTS),
  /** The reason the hook gave. */
  reason: Schema.String
}) {
  override get message(): string {
    return `the run was blocked by hook ${this.hookId} (${this.event}): ${this.reason}`
  }
}

/** A model-level hook raised, exited, timed out or returned something outside its event's verdicts. */
export class AgentHookFailed extends Schema.TaggedError<AgentHookFailed>()("AgentHookFailed", {
  hookId: Schema.String,
  event: Schema.Literals(AGENT_EVENTS),
  kind: FailureKind
}) {
  override get message(): string {
    return `hook ${this.hookId} (${this.event}) failed: ${this.kind}`
  }
}

/** A resumed state does not fit this agent (unknown pending call, malformed state). */
export class InvalidRunState extends Schema.TaggedError<InvalidRunState>()("InvalidRunState", {
  detail: Schema.String
}) {
  override get message(): string {
    return `invalid run state: ${this.detail}`
  }
}

/** A resumed state this agent did not seal: edited, unsealed, or sealed with another key. Nothing ran. */
export class UntrustedRunState extends Schema.TaggedError<UntrustedRunState>()("UntrustedRunState", {
  reason: Schema.Literals(["unsealed", "seal_mismatch"])
}) {
  override get message(): string {
    return this.reason === "unsealed"
      ? "the run state carries no seal: only a state this agent handed out can be resumed"
      : "the run state's seal does not match: it was edited, or sealed with another stateKey"
  }
}

/** Why a run ended with status "error" (core's errors when the tool listing itself failed). */
export const RunError = Schema.Union([
  ModelFailed,
  RunBlocked,
  AgentHookFailed,
  HookFailed,
  TransportError,
  ProtocolError
])

/** Why a run ended with status "error". */
export type RunError = typeof RunError.Type
