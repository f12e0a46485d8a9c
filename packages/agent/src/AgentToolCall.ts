/** Token totals and tool-call records of a run. */
import { Schema } from "effect"
import { Receipt } from "@interlock/core"
import { trusted } from "./Trusted.ts"

/** Token totals. */
export class Usage extends Schema.Class<Usage>("@interlock/agent/Usage")({
  inputTokens: Schema.Number,
  outputTokens: Schema.Number,
  totalTokens: Schema.Number
}) {
  /** No tokens. */
  static readonly zero = new Usage({ inputTokens: 0, outputTokens: 0, totalTokens: 0 })
  /** The sum of two usages. */
  plus(other: Usage): Usage {
    return trusted(Usage, {
      inputTokens: this.inputTokens + other.inputTokens,
      outputTokens: this.outputTokens + other.outputTokens,
      totalTokens: this.totalTokens + other.totalTokens
    })
  }
}

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
  receipt: Schema.optional(Receipt)
}) {}

