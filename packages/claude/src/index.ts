/**
 * @interlock/claude: Claude Code compatibility. Claude-style hooks and command hooks in the
 * Interlock pipeline, Claude Code settings.json loading, and the `interlock claude-hook` bridge.
 */
export {
  type AgentEventInput,
  type AgentEventName,
  type AgentOutcome,
  CLAUDE_AGENT_EVENT_ROWS,
  CLAUDE_AGENT_EVENTS,
  decodeAgentOutput,
  DEFAULT_AGENT_HOOK_TIMEOUT_MS,
  isAgentEvent
} from "./AgentEvents.ts"
export { AuditSink, type AuditSinkShape } from "./AuditSink.ts"
export {
  BRIDGE_EVENTS,
  bridgeCommandLine,
  type BridgeGroup,
  type BridgeHook,
  bridgeSettings,
  type BridgeSettingsOptions,
  DEFAULT_BRIDGE_TIMEOUT_SECONDS
} from "./BridgeSettings.ts"
/** The bridge: `Bridge.run(stdin, options)` and `Bridge.failure(stdin, reason)`. */
export * as Bridge from "./Bridge.ts"
export * from "./ClaudeEvent.ts"
export type {
  ClaudeHookFn,
  ClaudeHooksConfig,
  ClaudeHookSpec,
  ClaudeMatcherGroup,
  CompiledClaudeHook,
  CompiledClaudeHooks
} from "./ClaudeHook.ts"
/** Claude-style hooks as Interlock hooks, policy, approver and agent-event runner. */
export * as ClaudeHooks from "./ClaudeHooks.ts"
/** The `_meta` keys that carry additionalContext and halts through the pipeline. */
export * from "./ClaudeErrors.ts"
export * as ClaudeMeta from "./ClaudeMeta.ts"
export * from "./ClaudeOutput.ts"
export type { CommandOptions } from "./CommandHook.ts"
/** `Hook.command(...)`: command hooks. */
export * as Hook from "./Hook.ts"
/** The bridge's own deadline below the hook's `timeout`: `deadlineMillis`, `parseTimeout`, `remaining`. */
export * as HookDeadline from "./HookDeadline.ts"
export { isMetaTool, listingPolicy, META_TOOLS } from "./MetaTools.ts"
export type { Fallback, PolicyOptions } from "./PolicyHooks.ts"
export { read, type Reading } from "./Reading.ts"
export * from "./ReturnValue.ts"
/** `SettingsCheck.checkSettings(settings, exists)`: bridge hooks in a settings.json that could fail open. */
export { compileSettings, fromSettings, settingsHooks, type SettingsOptions } from "./Settings.ts"
export * as SettingsCheck from "./SettingsCheck.ts"
export * from "./ToolNames.ts"
/** Claude's tool_response and Interlock's ToolResult. */
export * as ToolResponse from "./ToolResponse.ts"
