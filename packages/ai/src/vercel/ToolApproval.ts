/**
 * `interlockApproval(tools)`: the `toolApproval` of `generateText` and `streamText` for tools governed with
 * `approvals: "sdk"`, so that the policy's Ask becomes the SDK's own approval request, with the policy's reason.
 */
import { Canonical } from "@interlock/core"
import type { GenericToolApprovalFunction, ToolApprovalStatus, ToolSet } from "ai"
import { governedOf } from "./VercelTools.ts"

/**
 * A `toolApproval` function over `tools` (made by `interlockTools` with `approvals: "sdk"`): a call the policy would
 * ask about, after the preToolCall hooks, needs a person's approval (`user-approval`, with the policy's reason).
 * Every other call is `not-applicable`, and the whole pipeline still decides it when the SDK runs it.
 */
export const interlockApproval = <TOOLS extends ToolSet>(
  tools: TOOLS
): GenericToolApprovalFunction<TOOLS, any, any> => {
  const governed = governedOf(tools)
  if (governed === undefined || !governed.bridge.sdk) {
    throw new TypeError("interlockApproval: these tools were not made by interlockTools with approvals: \"sdk\"")
  }
  return async ({ toolCall }): Promise<ToolApprovalStatus> => {
    const { input, toolCallId, toolName } = toolCall as { input: unknown; toolCallId: string; toolName: string }
    if (!governed.names.has(toolName) || !Canonical.isJsonObject(input)) return undefined
    const asked = await governed.bridge.asks(toolName, input, toolCallId)
    return asked === undefined ? undefined : { type: "user-approval", reason: asked.reason }
  }
}
