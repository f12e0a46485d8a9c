/**
 * What an output says, read into typed fields: halt (`continue: false`), block, a PreToolUse
 * permission, a rewrite, a replacement result, context for the model, and so on. The adapters
 * map a reading onto Interlock's verdicts, policy contributions and agent outcomes.
 */
import type { JsonObject } from "@interlock/core"
import type { Json } from "effect/Schema"
import { type AnyOutput, isAsync, type PermissionDecision } from "./ClaudeOutput.ts"

/** The typed content of one hook output. */
export interface Reading {
  /** The hook answered "later" (async): no opinion now. */
  readonly async: boolean
  /** `continue: false`: stop the run, with this reason ("" when none was given). */
  readonly halt: string | undefined
  /** `decision: "block"`: block the action, with this reason ("" when none was given). */
  readonly block: string | undefined
  /** PreToolUse's permission decision (`decision: "approve"` reads as allow). */
  readonly permission: "allow" | "deny" | "ask" | undefined
  readonly permissionReason: string | undefined
  readonly updatedInput: JsonObject | undefined
  readonly additionalContext: string | undefined
  readonly updatedMCPToolOutput: Json | undefined
  readonly customInstructions: string | undefined
  /** PermissionRequest's decision. */
  readonly permissionDecision: PermissionDecision | undefined
  readonly systemMessage: string | undefined
}

const NOTHING: Reading = {
  async: false,
  halt: undefined,
  block: undefined,
  permission: undefined,
  permissionReason: undefined,
  updatedInput: undefined,
  additionalContext: undefined,
  updatedMCPToolOutput: undefined,
  customInstructions: undefined,
  permissionDecision: undefined,
  systemMessage: undefined
}

/** Reads an output. */
export const read = (output: AnyOutput): Reading => {
  if (isAsync(output)) return { ...NOTHING, async: true }
  const inner = (output.hookSpecificOutput ?? {}) as Partial<Record<string, unknown>>
  const permission = inner.permissionDecision as Reading["permission"]
  return {
    ...NOTHING,
    halt: output.continue === false ? output.stopReason ?? "" : undefined,
    block: output.decision === "block" ? output.reason ?? "" : undefined,
    permission: permission ?? (output.decision === "approve" ? "allow" : undefined),
    permissionReason: (inner.permissionDecisionReason as string | undefined) ??
      (output.decision === "approve" ? output.reason : undefined),
    updatedInput: inner.updatedInput as JsonObject | undefined,
    additionalContext: inner.additionalContext as string | undefined,
    updatedMCPToolOutput: inner.updatedMCPToolOutput as Json | undefined,
    customInstructions: inner.customInstructions as string | undefined,
    permissionDecision: inner.decision as PermissionDecision | undefined,
    systemMessage: output.systemMessage
  }
}
