/** `@interlock/ai/vercel`: Interlock's hooks, policy, approvals and receipts inside the Vercel AI SDK (`ai` 7). */
export type { AfterModelChunkInput } from "../internal/ChunkGate.ts"
export { ModelDenied, ModelHookFailed } from "../internal/ModelErrors.ts"
export * as ModelVerdict from "../internal/ModelVerdict.ts"
export type { CallRef } from "../internal/ToolBridge.ts"
export {
  type AfterModelInput,
  type BeforeModelInput,
  interlockModelMiddleware,
  type ModelHooksConfig,
  type ModelMiddlewareOptions
} from "./ModelMiddleware.ts"
export { interlockApproval } from "./ToolApproval.ts"
export { closeTools, interlockTools, type InterlockToolsOptions } from "./VercelTools.ts"
