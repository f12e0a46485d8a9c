/** `@interlock/ai/langchain`: Interlock's hooks, policy, approvals and receipts as a LangChain v1 agent middleware. */
export type { CallRef } from "../internal/ToolBridge.ts"
export { interlockMiddleware, type InterlockMiddlewareOptions } from "./InterlockMiddleware.ts"
