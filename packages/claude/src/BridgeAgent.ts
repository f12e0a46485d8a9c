/**
 * How the bridge answers the agent-level events, and the closed answer of every event. UserPromptSubmit blocks
 * with the reason, as does a failed hook; Stop and SubagentStop block to keep the agent going, and a halt or a
 * failed hook stops the run (it neither goes on unchecked nor loops); SubagentStart and Notification give context
 * only; PreCompact gives custom instructions, or blocks.
 */
import type { AgentEventInput, AgentOutcome } from "./AgentEvents.ts"
import type { Answer } from "./BridgeAnswers.ts"
import type { ClaudeInput } from "./ClaudeEvent.ts"
import type { Output } from "./ClaudeOutput.ts"
import { isMcpToolName } from "./ToolNames.ts"

/** The text that replaces an MCP tool's output the bridge could not check. */
const UNCHECKED_TEXT = "Result withheld: Interlock could not check this tool's output."

/** What the closed answer needs of an event: its kind and, for the tool events, the tool. */
export interface ClosedTarget {
  readonly hook_event_name: ClaudeInput["hook_event_name"]
  readonly tool_name?: string | undefined
}

/** The answer that lets nothing through, for an event the bridge could not evaluate. */
export const failClosed = (input: ClosedTarget, reason: string): Answer => {
  switch (input.hook_event_name) {
    case "PreToolUse":
      return {
        output: {
          hookSpecificOutput: {
            hookEventName: "PreToolUse",
            permissionDecision: "deny",
            permissionDecisionReason: reason
          }
        },
        decision: "deny",
        reason
      }
    case "PermissionRequest":
      return {
        output: {
          hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: reason } }
        },
        decision: "deny",
        reason
      }
    case "PostToolUse":
      // The output may be what a failed redaction was for: an MCP tool's is withheld, a built-in's blocked.
      return {
        output: {
          decision: "block",
          reason,
          ...(isMcpToolName(input.tool_name ?? "")
            ? {
              hookSpecificOutput: {
                hookEventName: "PostToolUse",
                updatedMCPToolOutput: { content: [{ type: "text", text: UNCHECKED_TEXT }], isError: true }
              }
            }
            : {})
        },
        decision: "withheld",
        reason
      }
    case "UserPromptSubmit":
    case "PreCompact":
      return { output: { decision: "block", reason }, decision: "block", reason }
    case "Stop":
    case "SubagentStop":
      return { output: { continue: false, stopReason: reason }, decision: "halt", reason }
    default:
      return { output: {}, decision: "continue", reason }
  }
}

const continued = (input: AgentEventInput, outcome: Extract<AgentOutcome, { _tag: "Continue" }>): Output => {
  const top = outcome.systemMessage === undefined ? {} : { systemMessage: outcome.systemMessage }
  const event = input.hook_event_name
  if (event === "PreCompact") {
    return outcome.customInstructions === undefined
      ? top
      : { ...top, hookSpecificOutput: { hookEventName: event, customInstructions: outcome.customInstructions } }
  }
  if (event === "Stop" || event === "SubagentStop" || outcome.additionalContext === undefined) return top
  return { ...top, hookSpecificOutput: { hookEventName: event, additionalContext: outcome.additionalContext } }
}

/** The bridge's answer for an agent-level event's outcome. */
export const agentAnswer = (input: AgentEventInput, outcome: AgentOutcome): Answer => {
  switch (outcome._tag) {
    case "Continue":
      return { output: continued(input, outcome), decision: "continue" }
    case "Block":
      return { output: { decision: "block", reason: outcome.reason }, decision: "block", reason: outcome.reason }
    case "KeepGoing":
      return { output: { decision: "block", reason: outcome.reason }, decision: "keep_going", reason: outcome.reason }
    case "Halt":
      return {
        output: { continue: false, stopReason: outcome.stopReason },
        decision: "halt",
        reason: outcome.stopReason
      }
    case "Failed": {
      const reason = `Interlock: hook ${outcome.hookId} failed (${outcome.kind})`
      return { ...failClosed(input, reason), rule: outcome.hookId }
    }
  }
}
