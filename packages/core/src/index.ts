/**
 * @interlock/core: the typed tool-call program. Hooks and one policy around every tool call,
 * with receipts and telemetry. No I/O and no MCP import: transports live in other packages.
 */

export {
  type ApprovalAnswer,
  type ApprovalAttribution,
  type ApprovalOutcome,
  type ApprovalRequest,
  Approvals,
  type ApprovalsOptions,
  type ApprovalsShape,
  type ApprovalVia
} from "./Approvals.ts"
export { ANSWERED, AuditRecord, ClaudeDecision, ReceiptData } from "./AuditRecord.ts"
export * as BoundedCache from "./BoundedCache.ts"
export * as Canonical from "./Canonical.ts"
/** Schema class instances from fields the caller already checked (internal/Trusted.ts). */
export type { Json } from "./Canonical.ts"
export { ClientClosed, Defect, InterlockError, Interrupted } from "./ClientErrors.ts"
export * from "./Errors.ts"
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
} from "./EventRegistry.ts"
export type * from "./HookConfig.ts"
export { HookEntry, HookFunction, HookOptionFields, HookOptions, HooksConfigSchema, HookTimeout } from "./HookConfig.ts"
export { HookContext } from "./HookContext.ts"
export { HOOK_EVENT_ROWS, HOOK_EVENTS, type HookEvent, type HookVerdictTag, type VerdictStatus } from "./HookEvent.ts"
export * as HookRunner from "./HookRunner.ts"
export { type CompiledHook, type CompiledHooks, Hooks, type HooksShape } from "./Hooks.ts"
export * as Interlock from "./Interlock.ts"
export { makeTrusted } from "./internal/Trusted.ts"
export * as JsonText from "./JsonText.ts"
export { type Level, type Matcher, MatcherInput, MatcherJson, parseMatcher } from "./Matcher.ts"
export { isDeadline, toMillis } from "./Millis.ts"
export { canonicalName, sameName } from "./Names.ts"
export * as NativeTool from "./NativeTool.ts"
export { Policy, type PolicyFacts, type PolicyOperation, type PolicyShape } from "./Policy.ts"
export type { PolicyDecision } from "./PolicyDecision.ts"
export {
  AnnotationCondition,
  Decision,
  effectiveHints,
  PolicyRule,
  RuleFields,
  RuleId,
  type RulePredicate,
  RulePrincipals,
  RulesConfig
} from "./PolicyRules.ts"
export { Principal } from "./Principal.ts"
export type { AbortOptions, InterlockClient } from "./PromiseClient.ts"
export { PromptResult } from "./PromptResult.ts"
export {
  ApprovalRecord,
  CallOutcome,
  DetachedStep,
  FailureKind,
  HookRun,
  HookStatus,
  PolicyRecord,
  Receipt
} from "./Receipt.ts"
export { ResourceContents } from "./ResourceContents.ts"
export { MetricNames } from "./Telemetry.ts"
export { Tool } from "./Tool.ts"
export { type JsonObject, ToolCall } from "./ToolCall.ts"
export { type CallInput, type CallOptions, type OperationOptions, ToolCalls, type ToolCallsShape } from "./ToolCalls.ts"
export { ContentBlock, ToolResult, WITHHELD_TEXT } from "./ToolResult.ts"
export {
  type Progress,
  ToolTransport,
  type ToolTransportShape,
  type TransportCallOptions,
  unsupported
} from "./ToolTransport.ts"
export * as Verdict from "./Verdict.ts"
export type { HookKind } from "./VerdictDecoder.ts"
