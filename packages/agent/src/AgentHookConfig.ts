/**
 * The model-level hooks config as a user writes it: per event, a list of entries. An entry is a
 * function of the event's input, or `{ run, id?, timeout? }`. A hook may return a verdict, a
 * Promise of one, or an Effect of one.
 */
import type { Duration, Effect } from "effect"
import type { LanguageModel, Prompt } from "effect/ai"
import type { AddContext, Block, Continue, Deny, Hold, Rewrite } from "./AgentVerdict.ts"
import type { AgentTool } from "./Catalog.ts"

/** What a hook function may return. */
export type AgentHookReturn<V> = V | PromiseLike<V> | Effect.Effect<V, unknown, never>

/** userPromptSubmit: the prompt, before the first model request. */
export interface UserPromptSubmitInput {
  readonly prompt: string
  readonly messages: ReadonlyArray<Prompt.Message>
}

/** beforeModel: the working messages and tools, before each model request. */
export interface BeforeModelInput {
  readonly messages: ReadonlyArray<Prompt.Message>
  readonly tools: ReadonlyArray<AgentTool>
  readonly model: string
  readonly turn: number
}

/** afterModel: the model's response (parts, text, tool calls, usage), after each model request. */
export interface AfterModelInput {
  readonly response: LanguageModel.GenerateTextResponse<any, any>
  readonly model: string
  readonly turn: number
}

/**
 * afterModelChunk: a text delta of the model's answer, before anyone sees it. `pending` is the text
 * held back so far with this delta at its end (what the verdict decides); `released` is what the
 * consumer has already seen this turn. A secret split over two deltas is caught by holding (Hold)
 * the first until `pending` shows the whole of it, then rewriting it.
 */
export interface AfterModelChunkInput {
  readonly delta: string
  readonly pending: string
  readonly released: string
  /** True where the text ends (its last delta): Hold is then refused, a bad_return. */
  readonly final: boolean
  readonly model: string
  readonly turn: number
}

/** stop and subagentStop: the model answered without tool calls, and the run would end. */
export interface StopInput {
  /** The agent's name (for subagentStop) or "main". */
  readonly agent: string
  readonly text: string
  readonly messages: ReadonlyArray<Prompt.Message>
  readonly turn: number
  /** True when the run is already going on because a stop hook blocked: check it to avoid endless loops. */
  readonly stopHookActive: boolean
}

/** subagentStart: an agent used as a tool is about to run. */
export interface SubagentStartInput {
  readonly agent: string
  readonly prompt: string
}

/** preCompact: the history is about to be compacted. */
export interface PreCompactInput {
  readonly messages: ReadonlyArray<Prompt.Message>
  readonly turn: number
  readonly trigger: "auto"
}

/** notification: something the host may want to show (an approval is pending, a retry, a compaction). */
export interface NotificationInput {
  readonly kind: "approval_pending" | "model_retry" | "compacted" | "turn_limit"
  readonly message: string
}

/** One entry: a hook function, or the function with an id and a deadline. */
export type AgentHookEntry<I, V> =
  | ((input: I) => AgentHookReturn<V>)
  | {
    readonly run: (input: I) => AgentHookReturn<V>
    /** Names the hook in errors and hook records; default `<event>[<index>]`. Unique. */
    readonly id?: string
    /** The hook's deadline; default the agent's hookTimeout (5 s). */
    readonly timeout?: Duration.Input
  }

/** The model-level hooks, per event. */
export interface AgentHooksConfig {
  readonly userPromptSubmit?: ReadonlyArray<AgentHookEntry<UserPromptSubmitInput, Continue | Block | AddContext>>
  readonly beforeModel?: ReadonlyArray<AgentHookEntry<BeforeModelInput, Continue | Rewrite | Deny>>
  readonly afterModel?: ReadonlyArray<AgentHookEntry<AfterModelInput, Continue>>
  /** Pass (Continue), replace (Rewrite({ text })), hold back (Hold) or stop the turn (Block) for each text delta. */
  readonly afterModelChunk?: ReadonlyArray<AgentHookEntry<AfterModelChunkInput, Continue | Rewrite | Hold | Block>>
  readonly stop?: ReadonlyArray<AgentHookEntry<StopInput, Continue | Block>>
  readonly subagentStart?: ReadonlyArray<AgentHookEntry<SubagentStartInput, Continue | Block | AddContext>>
  readonly subagentStop?: ReadonlyArray<AgentHookEntry<StopInput, Continue | Block>>
  readonly preCompact?: ReadonlyArray<AgentHookEntry<PreCompactInput, Continue | Block | AddContext>>
  readonly notification?: ReadonlyArray<AgentHookEntry<NotificationInput, Continue>>
}
