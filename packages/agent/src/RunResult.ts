/** The result of a run, and the records it is made of. All Schema classes: they cross boundaries. */
import { Schema } from "effect"
import { Prompt } from "effect/ai"
import { RunError } from "./AgentErrors.ts"
import { AgentHookRun } from "./AgentHookRunner.ts"
import { AgentToolCall, Usage } from "./AgentToolCall.ts"
import { RunState } from "./RunState.ts"

/** How a run ended. */
export const RunStatus = Schema.Literals([
  "done",
  "pending",
  "incomplete",
  "interrupted",
  "cancelled",
  "timeout",
  "error"
])

/** How a run ended. */
export type RunStatus = typeof RunStatus.Type

/** The limit that ended a run early. */
export const RunLimit = Schema.Struct({
  kind: Schema.Literals(["maxTurns", "deadline"]),
  value: Schema.Number
})

/** The limit that ended a run early. */
export type RunLimit = typeof RunLimit.Type

/** The result of `Agent.run` or `Agent.resume`. */
export class RunResult extends Schema.Class<RunResult>("@interlock/agent/RunResult")({
  status: RunStatus,
  /** The model's final text ("" unless the run is done). */
  text: Schema.String,
  /** The working transcript. */
  messages: Schema.Array(Prompt.Message),
  toolCalls: Schema.Array(AgentToolCall),
  toolCallCount: Schema.Number,
  /** Model requests made. */
  turns: Schema.Number,
  usage: Usage,
  model: Schema.String,
  /** Set when a limit (maxTurns, deadline) ended the run. */
  limit: Schema.optional(RunLimit),
  /** Set when status is "error". */
  error: Schema.optional(RunError),
  /** Set when status is "pending": resume it with `agent.resume(state, decision)`. */
  state: Schema.optional(RunState),
  /** Every model-level hook run. */
  hooks: Schema.Array(AgentHookRun)
}) {}
