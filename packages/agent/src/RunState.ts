/**
 * A suspended run: where it stopped (a policy asked for approval and no approver is configured),
 * as a serializable Schema class. `RunState.toJson` / `RunState.fromJson` carry it across a
 * process boundary; resume it with `agent.resume(state, decision)`. The agent seals every state
 * it hands out (RunStateSeal.ts), so an edited or foreign state is refused on resume.
 */
import { Effect, Schema } from "effect"
import { Prompt } from "effect/ai"
import { InvalidRunState } from "./AgentErrors.ts"
import { AgentToolCall } from "./AgentToolCall.ts"

/** A call waiting for approval. `digest` is the final call's (the approval is bound to it). */
export class PendingCall extends Schema.Class<PendingCall>("@interlock/agent/PendingCall")({
  id: Schema.String,
  name: Schema.String,
  serverId: Schema.String,
  toolName: Schema.String,
  args: Schema.JsonObject,
  /** Digest of the call as the pipeline would send it (after pre-hooks): the approval is bound to it. */
  digest: Schema.String,
  /** Digest of the call as the model asked for it: an edited state no longer matches it. */
  requestDigest: Schema.String,
  /** The policy's reason for asking. */
  reason: Schema.String
}) {}

/** A call of the suspended turn that already has its answer. */
export class SettledCall extends Schema.Class<SettledCall>("@interlock/agent/SettledCall")({
  id: Schema.String,
  name: Schema.String,
  output: Schema.String,
  isError: Schema.Boolean
}) {}

/** A suspended run. */
export class RunState extends Schema.Class<RunState>("@interlock/agent/RunState")({
  version: Schema.Literal(1),
  messages: Schema.Array(Prompt.Message),
  /** The active tools (model-facing names), after beforeModel rewrites. */
  tools: Schema.Array(Schema.String),
  turns: Schema.Number,
  inputTokens: Schema.Number,
  outputTokens: Schema.Number,
  /** The tool calls of earlier turns and the settled ones of this turn. */
  toolCalls: Schema.Array(AgentToolCall),
  /** The suspended turn's calls, in call order: settled ones and pending ones. */
  slots: Schema.Array(Schema.Union([SettledCall, PendingCall])),
  stopHookActive: Schema.Boolean,
  /**
   * HMAC-SHA256 (hex) over the rest of the state with the agent's state key; `resume` refuses a state it does not
   * verify.
   */
  seal: Schema.optionalKey(Schema.String)
}) {
  /** The state as a JSON string. */
  static toJson(state: RunState): string {
    return encodeJson(state)
  }
  /** Reads a state back from JSON; a malformed one is an InvalidRunState. */
  static fromJson(json: string): Effect.Effect<RunState, InvalidRunState> {
    return decodeJson(json).pipe(
      Effect.mapError(() => new InvalidRunState({ detail: "the JSON is not a run state of this version" }))
    )
  }
}

const Json = Schema.fromJsonString(RunState)
const encodeJson = Schema.encodeSync(Json)
const decodeJson = Schema.decodeUnknownEffect(Json)
