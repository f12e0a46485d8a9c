/** Token totals and tool-call records of a run. */
import { Receipt } from "@interlock/core"
import { Schema } from "effect"

/** Token totals. */
export class Usage extends Schema.Class<Usage>("@interlock/agent/Usage")({
  inputTokens: Schema.Number,
  outputTokens: Schema.Number,
  totalTokens: Schema.Number
}) {}

/** One tool call the model made, and how it ended. `receipt` is core's, when the call reached the pipeline. */
export class AgentToolCall extends Schema.Class<AgentToolCall>("@interlock/agent/AgentToolCall")({
  id: Schema.String,
  /** The model-facing tool name. */
  name: Schema.String,
  args: Schema.Json,
  /** The text the model got back. */
  output: Schema.String,
  isError: Schema.Boolean,
  turn: Schema.Number,
  receipt: Schema.optional(Receipt),
  /** True when the run was cancelled while the call was in flight (its receipt is then the agent's). */
  cancelled: Schema.optional(Schema.Boolean)
}) {}
