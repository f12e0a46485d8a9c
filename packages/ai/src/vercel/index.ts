/** `@interlock/ai/vercel`: Interlock's hooks, policy, approvals and receipts inside the Vercel AI SDK (`ai` 7). */
export type { CallRef } from "../internal/ToolBridge.ts"
export { closeTools, interlockTools, type InterlockToolsOptions } from "./VercelTools.ts"
