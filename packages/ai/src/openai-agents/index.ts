/** `@interlock/ai/openai-agents`: Interlock's hooks, policy, approvals and receipts around OpenAI Agents JS tools. */
export type { CallRef } from "../internal/ToolBridge.ts"
export { GUARDRAIL, type InterlockTools, interlockTools, type InterlockToolsOptions } from "./AgentTools.ts"
