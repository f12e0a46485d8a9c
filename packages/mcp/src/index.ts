/**
 * @interlock/mcp: MCP transports (stdio, Streamable HTTP, in-memory) and a multi-server hub on the
 * official MCP SDK 2, offered as Layers that provide core's ToolTransport.
 */

export {
  type Caller,
  CurrentCaller,
  type HostRequest,
  type InputRound,
  type Operation,
  type Relay,
  type Resume
} from "./Caller.ts"
export { type Credential, CredentialUnavailable, CurrentCredential, type ServerAuth } from "./Credential.ts"
export {
  blockReason,
  blocks,
  decide,
  effectiveSeverity,
  type Member,
  type ModelResult,
  type Outcome,
  resolvePriority,
  runModel,
  runOrder,
  type Step,
  verdictOf
} from "./ExecutionModel.ts"
export type { ExtensionRequest } from "./ExtensionRequest.ts"
export { isCredentialRefusal } from "./Failures.ts"
export {
  Elicitation,
  type ElicitationShape,
  Roots,
  type RootsShape,
  Sampling,
  type SamplingShape
} from "./HostRequests.ts"
export type { HttpOptions, HubOptions, MemoryOptions, Negotiation, ServerConfig, StdioOptions } from "./HubConfig.ts"
export { defaultReconnect } from "./HubConfig.ts"
export type { HubFeaturesShape } from "./HubFeatures.ts"
export { type HubListener, type HubNotification, LIST_CHANGED } from "./HubNotification.ts"
export { type Answer, invokeInterceptor, listInterceptors } from "./InterceptorClient.ts"
export { InterceptorFailed, InterceptorFailureKind, InterceptorsUnavailable } from "./InterceptorErrors.ts"
export { type Binding, BINDINGS } from "./InterceptorEvents.ts"
export { hookId } from "./InterceptorHooks.ts"
export * as Interceptors from "./Interceptors.ts"
export {
  InterceptorDescriptor,
  InterceptorHook,
  INTERCEPTORS_DRAFT,
  INTERCEPTORS_EXTENSION,
  type InvokeParams,
  ListResult,
  MutationResult,
  Phase,
  Severity,
  ValidationMessage,
  ValidationResult
} from "./InterceptorWire.ts"
export { McpHub, type McpHubShape, type ServerStatus, TOOL_CHANGES_METRIC } from "./McpHub.ts"
export * as McpTransport from "./McpTransport.ts"
export { MAX_INPUT_ROUNDS } from "./RoundTrip.ts"
export { SharedPins, type SharedPinsShape } from "./SharedPins.ts"
export type { TaskMethod, TaskRequest } from "./TaskRequests.ts"
export { carriedTask, TASK_META, TASKS_EXTENSION } from "./TaskResult.ts"
export {
  formatTraceparent,
  isBaggage,
  isTracestate,
  MAX_BAGGAGE,
  MAX_TRACESTATE,
  parseTraceparent,
  type TraceParent
} from "./TraceContext.ts"
