/**
 * Verdicts: what a hook may answer. There is no Allow: the Policy service is the only allow
 * authority, and a hook that answers anything outside its event's verdicts is a `bad_return`.
 * Which event accepts which verdict, with its Schema and receipt status, is the event registry's
 * (`HOOK_EVENT_ROWS` in HookEvent.ts; the README's event table is rendered from it).
 */
import type { Json } from "../model/Canonical.ts"
import type { Tool } from "../model/Tool.ts"
import type { JsonObject } from "../model/ToolCall.ts"
import type { ToolResult } from "../model/ToolResult.ts"
import type { HOOK_EVENT_ROWS, HookEvent } from "./HookEvent.ts"

/** Go on unchanged; `note` (at most 256 characters, never call data) is kept on the hook's receipt entry. */
export interface Continue {
  readonly _tag: "Continue"
  readonly note?: string | undefined
}

/** Go on with new arguments and/or meta. serverId, name and callId may be echoed but never changed. */
export interface Rewrite {
  readonly _tag: "Rewrite"
  readonly args?: JsonObject | undefined
  readonly meta?: JsonObject | undefined
  readonly serverId?: string | undefined
  readonly name?: string | undefined
  readonly callId?: string | undefined
}

/** Refuse the call; `reason` is returned to the caller in the Denied error. */
export interface Deny {
  readonly _tag: "Deny"
  readonly reason: string
}

/** Answer the call with this result: no policy, no request; post-hooks still run. */
export interface Halt {
  readonly _tag: "Halt"
  readonly result: ToolResult | ToolResultInput
}

/** Replace the call's result (postToolCall). */
export interface ReplaceResult {
  readonly _tag: "Replace"
  readonly result: ToolResult | ToolResultInput
}

/** Replace the listed tools with a subset of them, possibly annotated (toolsListed). */
export interface ReplaceTools {
  readonly _tag: "ReplaceTools"
  readonly tools: ReadonlyArray<Tool>
}

/** Turn the call's error into this result and end the failure chain (toolCallFailed). */
export interface Recover {
  readonly _tag: "Recover"
  readonly result: ToolResult | ToolResultInput
}

/** A result written as a plain object. */
export interface ToolResultInput {
  readonly content: ReadonlyArray<{ readonly type: string; readonly [key: string]: Json }>
  readonly structuredContent?: JsonObject | undefined
  readonly isError?: boolean | undefined
  readonly meta?: JsonObject | undefined
}

/** Each verdict tag's type, as a hook writes it. */
export interface ByTag {
  readonly Continue: Continue
  readonly Rewrite: Rewrite
  readonly Deny: Deny
  readonly Halt: Halt
  readonly Replace: ReplaceResult
  readonly ReplaceTools: ReplaceTools
  readonly Recover: Recover
}

/** The verdicts an event's row accepts. */
export type VerdictOf<E extends HookEvent> = ByTag[keyof typeof HOOK_EVENT_ROWS[E]["verdicts"] & keyof ByTag]

/** Verdicts of a preToolCall hook. */
export type PreToolCallVerdict = VerdictOf<"preToolCall">
/** Verdicts of a postToolCall hook. */
export type PostToolCallVerdict = VerdictOf<"postToolCall">
/** Verdicts of a toolCallFailed hook. */
export type ToolCallFailedVerdict = VerdictOf<"toolCallFailed">
/** Verdicts of a toolsListed hook. */
export type ToolsListedVerdict = VerdictOf<"toolsListed">
/** Verdicts of a resourceRead hook. */
export type ResourceReadVerdict = VerdictOf<"resourceRead">
/** Verdicts of a promptGet hook. */
export type PromptGetVerdict = VerdictOf<"promptGet">

/** Any verdict. */
export type Verdict = VerdictOf<HookEvent>

/** The one Continue value. */
export const cont: Continue = Object.freeze({ _tag: "Continue" })

/** Go on unchanged, with a note for the receipt: what the hook saw without acting on it (never call data). */
export const note = (text: string): Continue => ({ _tag: "Continue", note: text })

/** Rewrite a call's args and/or meta (pre), or a prompt's args (promptGet). */
export const rewrite = (patch: Omit<Rewrite, "_tag">): Rewrite => ({ _tag: "Rewrite", ...patch })

/** Deny with a reason. */
export const deny = (reason: string): Deny => ({ _tag: "Deny", reason })

/** Answer with a synthetic result. */
export const halt = (result: ToolResult | ToolResultInput): Halt => ({ _tag: "Halt", result })

/** Replace a result. */
export const replace = (result: ToolResult | ToolResultInput): ReplaceResult => ({ _tag: "Replace", result })

/** Replace a tool listing with a subset of it. */
export const replaceTools = (tools: ReadonlyArray<Tool>): ReplaceTools => ({ _tag: "ReplaceTools", tools })

/** Recover from an error with a result. */
export const recover = (result: ToolResult | ToolResultInput): Recover => ({ _tag: "Recover", result })

export {
  /** `Verdict.continue`: the one Continue value. */
  cont as continue
}
