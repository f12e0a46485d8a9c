/**
 * @interlock/agent: the agent loop. A language model (effect/ai's LanguageModel) proposes tool
 * calls and Interlock runs each one through core's pipeline (hooks, policy, approvals, receipts),
 * with model-level hooks, suspension and resume, retries, deadlines and a metric stream.
 */

export * as Agent from "./Agent.ts"
export {
  AgentHookFailed,
  InvalidRunState,
  ModelFailed,
  RunBlocked,
  RunError,
  UntrustedRunState
} from "./AgentErrors.ts"
export { AGENT_EVENT_ROWS, AGENT_EVENTS, type AgentEvent } from "./AgentEvent.ts"
export type * from "./AgentHookConfig.ts"
export { AgentHookRun } from "./AgentHookRunner.ts"
export type { AgentHooks, AgentLayers, AgentOptions, AgentSettings, PlainLayers } from "./AgentOptions.ts"
export { AgentToolCall, Usage } from "./AgentToolCall.ts"
export * as AgentVerdict from "./AgentVerdict.ts"
export * as AnthropicMessages from "./AnthropicMessages.ts"
export type { AgentTool } from "./Catalog.ts"
export { type CompactionInfo, type CompactionOptions, keepRecent } from "./Compaction.ts"
export * as Metrics from "./Metrics.ts"
export * as OpenAiChat from "./OpenAiChat.ts"
export * as OpenAiResponses from "./OpenAiResponses.ts"
export type { ProviderConfig } from "./ProviderHttp.ts"
export type { ModelErrorInfo, OnError, RetryOptions } from "./Resilience.ts"
export { RunLimit, RunResult, RunStatus } from "./RunResult.ts"
export { PendingCall, RunState, SettledCall } from "./RunState.ts"
export * as RunStateSeal from "./RunStateSeal.ts"
export * as StreamEvent from "./StreamEvent.ts"
