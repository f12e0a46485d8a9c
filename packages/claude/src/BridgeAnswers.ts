/**
 * How the bridge answers Claude Code for the tool events, from what Interlock's program did: one function per
 * event (each says its rules). An allow comes only from a policy rule that allowed explicitly.
 */
import {
  type ApprovalAnswer,
  type CallError,
  Canonical,
  type ClaudeDecision,
  ToolResult,
  WITHHELD_TEXT
} from "@interlock/core"
import { Exit } from "effect"
import type { Json } from "effect/Schema"
import type { Governed } from "./BridgeTools.ts"
import { contextOf, haltOf } from "./ClaudeMeta.ts"
import type { Output } from "./ClaudeOutput.ts"
import { CLAUDE_SERVER } from "./ToolNames.ts"
import { callToolResult, toResponse } from "./ToolResponse.ts"

/** An answer for Claude Code, with what to audit. */
export interface Answer {
  readonly output: Output
  readonly decision: ClaudeDecision
  readonly rule?: string | undefined
  readonly reason?: string | undefined
  readonly digest?: string | undefined
  readonly rewritten?: boolean | undefined
}

const joined = (texts: ReadonlyArray<string>): string | undefined => (texts.length === 0 ? undefined : texts.join("\n"))

/** Why a call was refused, in one line for Claude (the reason a rule or hook gave). */
const refusal = (error: CallError | undefined): { reason: string; rule?: string | undefined } => {
  if (error === undefined) return { reason: "Interlock could not evaluate this call" }
  switch (error._tag) {
    case "Denied":
      switch (error.reason._tag) {
        case "HookDenied":
          return { reason: error.reason.message, rule: error.reason.hookId }
        case "PolicyDenied":
          return { reason: error.reason.message, rule: error.reason.rule }
        case "ApprovalDenied":
          return { reason: error.reason.message }
        case "NotExposed":
          return { reason: "Interlock: this tool is not exposed" }
      }
      break
    case "HookFailed":
      return {
        reason: `Interlock: hook ${error.hookId} failed (${error.kind}), so the call is denied`,
        rule: error.hookId
      }
  }
  return { reason: "Interlock could not evaluate this call" }
}

const sameJson = (a: unknown, b: unknown): boolean => Canonical.canonicalJson(a) === Canonical.canonicalJson(b)

/**
 * PreToolUse's answer: allow only when a policy rule allowed explicitly (a decision naming its rule), a deny with
 * its reason, an Ask asks, and no rule is `{}` (no opinion). A rewritten input goes in `updatedInput`, confirmed
 * by the user without an explicit allow (the bridge's own last rewrite alone needs no decision); a halt gives
 * `continue: false`.
 */
export const preAnswer = (g: Governed): Answer => {
  const error = g.error
  if (Exit.isSuccess(g.exit) && g.receipt?.outcome === "halted") {
    const rule = g.receipt.hooks.find((run) => run.status === "halt")?.id
    const stop = haltOf(g.exit.value.meta)
    if (stop !== undefined) {
      const reason = stop || "Stopped by an Interlock hook"
      const deny = {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: reason
      } as const
      return {
        output: { continue: false, stopReason: reason, hookSpecificOutput: deny },
        decision: "halt",
        reason,
        rule
      }
    }
    // A hook answered for the tool: Claude gets the answer as the reason; the audit row never holds it.
    const answer = g.exit.value.text.slice(0, 2_000) || "Answered by an Interlock hook"
    return {
      output: {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "deny",
          permissionDecisionReason: answer
        }
      },
      decision: "deny",
      reason: "a hook answered for the tool (Halt)",
      rule
    }
  }
  if (error !== undefined || g.sent === undefined) {
    if (g.asked !== undefined && error?._tag === "Denied" && error.reason._tag === "ApprovalDenied") {
      return {
        output: {
          hookSpecificOutput: {
            hookEventName: "PreToolUse",
            permissionDecision: "ask",
            permissionDecisionReason: g.asked.reason
          }
        },
        decision: "ask",
        reason: g.asked.reason,
        rule: g.asked.rule,
        digest: g.receipt?.digest
      }
    }
    const { reason, rule } = refusal(error)
    return {
      output: {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "deny",
          permissionDecisionReason: reason
        }
      },
      decision: "deny",
      reason,
      rule,
      digest: g.receipt?.digest
    }
  }
  const sent = g.sent
  const rewritten = !sameJson(sent.args, g.original.args)
  const rule = g.receipt?.policy?.decision === "allow" ? g.receipt.policy.rule : undefined
  const additionalContext = joined(contextOf(sent.meta))
  const base = { digest: sent.digest, rewritten }
  if (rule !== undefined) {
    const reason = `Interlock: allowed by rule ${rule}`
    return {
      output: {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "allow",
          permissionDecisionReason: reason,
          ...(rewritten ? { updatedInput: sent.args } : {}),
          ...(additionalContext === undefined ? {} : { additionalContext })
        }
      },
      decision: "allow",
      rule,
      reason,
      ...base
    }
  }
  // Only the bridge's last rewrite (Bash through the redaction filter) changed the input: no one need confirm
  // it, and Claude Code's own permissions decide as they would have (Claude Code applies updatedInput without a
  // decision).
  if (rewritten && g.beforeLastRewrite !== undefined && sameJson(g.beforeLastRewrite.args, g.original.args)) {
    return {
      output: {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          updatedInput: sent.args,
          ...(additionalContext === undefined ? {} : { additionalContext })
        }
      },
      decision: "none",
      ...base
    }
  }
  if (rewritten) {
    const reason = "Interlock rewrote this call's input; confirm the rewritten input"
    return {
      output: {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "ask",
          permissionDecisionReason: reason,
          updatedInput: sent.args,
          ...(additionalContext === undefined ? {} : { additionalContext })
        }
      },
      decision: "ask",
      reason,
      ...base
    }
  }
  return {
    output: additionalContext === undefined
      ? {}
      : { hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext } },
    decision: "none",
    ...base
  }
}

/**
 * PermissionRequest's answer, from the same stage as PreToolUse's: an explicit allow or a deny answers the
 * prompt; an Ask goes to the PermissionRequest hooks when there are any; anything else leaves it to the user.
 */
export const permissionAnswer = (g: Governed): Answer => {
  const pre = preAnswer(g)
  if (pre.decision === "allow") {
    // The CLI requires updatedInput on an allow; the call's own input (or the rewritten one) is the safe value.
    const updatedInput = (pre.rewritten === true ? g.sent?.args : undefined) ?? g.original.args
    return {
      ...pre,
      output: {
        hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow", updatedInput } }
      }
    }
  }
  if (pre.decision === "deny" || pre.decision === "halt") {
    const message = pre.reason ?? "denied by Interlock"
    return {
      ...pre,
      output: {
        ...(pre.decision === "halt" ? { continue: false, stopReason: message } : {}),
        hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message } }
      }
    }
  }
  return { ...pre, output: {} }
}

/** PermissionRequest's answer once the PermissionRequest hooks answered the policy's Ask. */
export const approvalAnswer = (g: Governed, asked: Answer, approval: ApprovalAnswer): Answer => {
  if (approval.decision === "allow") {
    return {
      ...asked,
      output: {
        hookSpecificOutput: {
          hookEventName: "PermissionRequest",
          decision: { behavior: "allow", updatedInput: g.original.args }
        }
      },
      decision: "allow",
      reason: "approved by a PermissionRequest hook"
    }
  }
  const message = approval.reason ?? "denied by a PermissionRequest hook"
  return {
    ...asked,
    output: { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message } } },
    decision: "deny",
    reason: message
  }
}

/**
 * PostToolUse's answer. `response` is the tool_response Claude Code sent, to keep its shape. A replaced or
 * withheld result goes back as `updatedMCPToolOutput` (MCP tools); a built-in's output cannot be replaced, so it
 * is blocked with the replacement as context. Hooks' context becomes `additionalContext`.
 */
export const postAnswer = (g: Governed, original: ToolResult, response: Json | undefined): Answer => {
  const mcp = g.tool.serverId !== CLAUDE_SERVER
  const final: ToolResult | undefined = Exit.isSuccess(g.exit) ? g.exit.value : undefined
  const withheld = final === undefined || g.receipt?.outcome === "withheld"
  const stop = final === undefined ? undefined : haltOf(final.meta)
  if (stop !== undefined) {
    const reason = stop || "Stopped by an Interlock hook"
    return { output: { continue: false, stopReason: reason }, decision: "halt", reason }
  }
  const additionalContext = final === undefined ? undefined : joined(contextOf(final.meta))
  const replaced = !withheld && !sameJson(callToolResult(final), callToolResult(original))
  if (!withheld && !replaced) {
    return {
      output: additionalContext === undefined
        ? {}
        : { hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext } },
      decision: "continue"
    }
  }
  const decision: ClaudeDecision = withheld ? "withheld" : "replace"
  const reason = withheld ? WITHHELD_TEXT : "Interlock replaced this tool's output"
  const text = withheld ? WITHHELD_TEXT : final.text
  if (mcp) {
    // A ToolResult, so that a response that came as text goes back as the replacement's text.
    const replacement = withheld ? ToolResult.text(WITHHELD_TEXT, { isError: true }) : final
    return {
      output: {
        hookSpecificOutput: {
          hookEventName: "PostToolUse",
          updatedMCPToolOutput: toResponse(replacement, response),
          ...(additionalContext === undefined ? {} : { additionalContext })
        }
      },
      decision,
      reason
    }
  }
  // A built-in's output cannot be replaced: block it, and give the replacement as context.
  const context = joined([
    `${reason}. Use this instead of the tool's output:`,
    text,
    ...(additionalContext === undefined ? [] : [additionalContext])
  ])
  return {
    output: {
      decision: "block",
      reason,
      hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: context }
    },
    decision,
    reason
  }
}

/** PostToolUseFailure's answer: a recovered error becomes `additionalContext`. */
export const failureAnswer = (g: Governed): Answer => {
  if (Exit.isSuccess(g.exit) && g.receipt?.outcome === "recovered") {
    const text = g.exit.value.text
    return {
      output: {
        hookSpecificOutput: {
          hookEventName: "PostToolUseFailure",
          additionalContext: `Interlock recovered this failure: ${text}`
        }
      },
      decision: "recovered"
    }
  }
  return { output: {}, decision: "continue" }
}
