/** `@interlock/ai/langchain`: Interlock's hooks, policy, approvals and receipts as a LangChain v1 agent middleware. */
export type { AfterModelChunkInput } from "../internal/ChunkGate.ts"
export { ModelDenied, ModelHookFailed } from "../internal/ModelErrors.ts"
export * as ModelVerdict from "../internal/ModelVerdict.ts"
export type { CallRef } from "../internal/ToolBridge.ts"
export { interlockMiddleware, type InterlockMiddlewareOptions } from "./InterlockMiddleware.ts"
export type { AfterModelInput, BeforeModelInput, ModelHooksConfig } from "./ModelCall.ts"
