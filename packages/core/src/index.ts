/**
 * @interlock/core: the typed tool-call program. Hooks and one policy around every tool call,
 * with receipts and telemetry. No I/O and no MCP import: transports live in other packages.
 */

export * as BoundedCache from "./internal/BoundedCache.ts"
export { ANSWERED, AuditRecord, ClaudeDecision, ReceiptData } from "./model/AuditRecord.ts"
export * as Canonical from "./model/Canonical.ts"
export {
  type ApprovalAnswer,
  type ApprovalAttribution,
  type ApprovalOutcome,
  type ApprovalRequest,
  Approvals,
  type ApprovalsOptions,
  type ApprovalsShape,
  type ApprovalVia
} from "./policy/Approvals.ts"
/** Schema class instances from fields the caller already checked (internal/Trusted.ts). */
export {
  acceptsVerdict,
  defineEvents,
  eventNames,
  type EventRow,
  type EventRows,
  type FailureRule,
  renderEventTable,
  rowAccepts,
  type RunOrder,
  statusByTag,
  statusesOf,
  type StatusOf,
  verdictKeys,
  type VerdictRow,
  verdictSchema,
  verdictSignature,
  type VerdictTagOf,
  verdictTags,
  type VerdictTypeOf
} from "./hooks/EventRegistry.ts"
export type * from "./hooks/HookConfig.ts"
export {
  HookEntry,
  HookFunction,
  HookOptionFields,
  HookOptions,
  HooksConfigSchema,
  HookTimeout
} from "./hooks/HookConfig.ts"
export { HookContext } from "./hooks/HookContext.ts"
export {
  HOOK_EVENT_ROWS,
  HOOK_EVENTS,
  type HookEvent,
  type HookVerdictTag,
  type VerdictStatus
} from "./hooks/HookEvent.ts"
export * as HookRunner from "./hooks/HookRunner.ts"
export {
  type CompiledHook,
  type CompiledHooks,
  Hooks,
  type HooksRequirements,
  type HooksShape,
  type ResolvedHook
} from "./hooks/Hooks.ts"
export * as SingleHook from "./hooks/SingleHook.ts"
export * as Verdict from "./hooks/Verdict.ts"
export type { HookKind } from "./hooks/VerdictDecoder.ts"
export { makeTrusted } from "./internal/Trusted.ts"
export type { Json } from "./model/Canonical.ts"
export { ClientClosed, Defect, InterlockError, Interrupted } from "./model/ClientErrors.ts"
export * from "./model/Errors.ts"
export * as JsonText from "./model/JsonText.ts"
export { isDeadline, toMillis } from "./model/Millis.ts"
export { Principal } from "./model/Principal.ts"
export { PromptResult } from "./model/PromptResult.ts"
export {
  ApprovalRecord,
  CallOutcome,
  DetachedStep,
  FailureKind,
  HookRun,
  HookStatus,
  PolicyRecord,
  Receipt
} from "./model/Receipt.ts"
export { ResourceContents } from "./model/ResourceContents.ts"
export { Tool } from "./model/Tool.ts"
export { type JsonObject, ToolCall } from "./model/ToolCall.ts"
export { ContentBlock, ToolResult, WITHHELD_TEXT } from "./model/ToolResult.ts"
export { type Level, type Matcher, MatcherInput, MatcherJson, parseMatcher } from "./policy/Matcher.ts"
export { canonicalName, sameName, skeletonName } from "./policy/Names.ts"
export { Policy, type PolicyFacts, type PolicyOperation, type PolicyShape } from "./policy/Policy.ts"
export type { PolicyDecision } from "./policy/PolicyDecision.ts"
export {
  AnnotationCondition,
  Decision,
  effectiveHints,
  PolicyRule,
  RuleFields,
  RuleId,
  type RulePredicate,
  RulePrincipals,
  RulesConfig,
  RuleTarget
} from "./policy/PolicyRules.ts"
export * as Interlock from "./program/Interlock.ts"
export * as NativeTool from "./program/NativeTool.ts"
export type { AbortOptions, InterlockClient } from "./program/PromiseClient.ts"
export { MetricNames } from "./program/Telemetry.ts"
export {
  type CallInput,
  type CallOptions,
  type OperationOptions,
  ToolCalls,
  type ToolCallsShape
} from "./program/ToolCalls.ts"
export { ToolTransport } from "./program/ToolTransport.ts"
export {
  type Progress,
  type ToolTransportShape,
  type TransportCallOptions,
  unsupported
} from "./program/TransportShape.ts"
