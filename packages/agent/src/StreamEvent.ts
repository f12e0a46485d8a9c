/**
 * The events of a streamed run (`agent.stream`), a Schema-tagged union: the model's text and
 * tool-input deltas, each tool call once its input is complete, its result with its receipt, the
 * turn boundaries, and last the RunResult. `run` folds the same events into that last result.
 */
import { Schema } from "effect"
import { AgentToolCall } from "./AgentToolCall.ts"
import { RunResult } from "./RunResult.ts"

/** A turn begins: a model request is about to be made (0-based, as hooks count turns). */
export const TurnStart = Schema.TaggedStruct("TurnStart", { turn: Schema.Number })

/** Text of the model's answer, after the afterModelChunk hooks (held-back text comes later, or never). */
export const TextDelta = Schema.TaggedStruct("TextDelta", { turn: Schema.Number, text: Schema.String })

/** The model began writing a tool call's input. */
export const ToolInputStart = Schema.TaggedStruct("ToolInputStart", {
  turn: Schema.Number,
  id: Schema.String,
  name: Schema.String
})

/** A piece of a tool call's input JSON: shown, never executed. */
export const ToolInputDelta = Schema.TaggedStruct("ToolInputDelta", {
  turn: Schema.Number,
  id: Schema.String,
  delta: Schema.String
})

/** A tool call whose input is complete. It runs after the answer ends, through the whole pipeline. */
export const ToolCall = Schema.TaggedStruct("ToolCall", {
  turn: Schema.Number,
  id: Schema.String,
  name: Schema.String,
  /** The input as the model wrote it (null when it is not JSON). */
  args: Schema.Json
})

/** A tool call settled: its output, whether it is an error, and core's receipt when it reached the pipeline. */
export const ToolResult = Schema.TaggedStruct("ToolResult", { turn: Schema.Number, call: AgentToolCall })

/** A turn ended: the model's finish reason, and the hook that stopped the turn, if one did. */
export const TurnEnd = Schema.TaggedStruct("TurnEnd", {
  turn: Schema.Number,
  finish: Schema.String,
  stoppedBy: Schema.optional(Schema.Struct({ hookId: Schema.String, reason: Schema.String }))
})

/** The run ended: always the last event of a stream that was not cancelled by its consumer. */
export const Result = Schema.TaggedStruct("Result", { result: RunResult })

/** Any event of a streamed run. */
export const StreamEvent = Schema.Union([
  TurnStart,
  TextDelta,
  ToolInputStart,
  ToolInputDelta,
  ToolCall,
  ToolResult,
  TurnEnd,
  Result
])

/** Any event of a streamed run. */
export type StreamEvent = typeof StreamEvent.Type
