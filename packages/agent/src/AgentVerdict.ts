/**
 * Verdicts of model-level hooks. As in core there is no Allow: a hook may only narrow or steer
 * the run, and anything outside its event's verdicts is a `bad_return`. Which event accepts which
 * verdict, with its Schema and status, is the registry's (`AGENT_EVENT_ROWS` in AgentEvent.ts).
 */
import type { Prompt } from "effect/ai"
import type { AgentTool } from "./Catalog.ts"

/** Go on unchanged. */
export interface Continue {
  readonly _tag: "Continue"
}

/**
 * Replace the working messages and/or tools for the rest of the run (beforeModel), or the text held
 * back so far (afterModelChunk: `text` only).
 */
export interface Rewrite {
  readonly _tag: "Rewrite"
  readonly messages?: ReadonlyArray<Prompt.Message | Prompt.MessageEncoded> | undefined
  /** A subset of the tools the hook was given (by name); [] sends no tools at all. */
  readonly tools?: ReadonlyArray<AgentTool | string> | undefined
  /** afterModelChunk: what replaces the held-back text (the consumer and the transcript get this instead). */
  readonly text?: string | undefined
}

/** Keep the text back until the next delta (afterModelChunk): refused where the text ends, so nothing stays held. */
export interface Hold {
  readonly _tag: "Hold"
}

/** Abort the run (beforeModel). */
export interface Deny {
  readonly _tag: "Deny"
  readonly reason: string
}

/**
 * Block: the prompt or subagent is refused; for stop events, the loop goes on with `reason`; for
 * afterModelChunk, the turn stops (the held-back text and the turn's tool calls are dropped).
 */
export interface Block {
  readonly _tag: "Block"
  readonly reason: string
}

/** Add context: text added for the model (userPromptSubmit, subagentStart) or instructions for compaction. */
export interface AddContext {
  readonly _tag: "AddContext"
  readonly text: string
}

/** Any model-level verdict. */
export type AgentVerdict = Continue | Rewrite | Deny | Block | AddContext | Hold

/** The one Continue value. */
export const cont: Continue = Object.freeze({ _tag: "Continue" })

/** Rewrite messages and/or tools for the rest of the run. */
export const rewrite = (patch: Omit<Rewrite, "_tag">): Rewrite => ({ _tag: "Rewrite", ...patch })

/** The one Hold value (afterModelChunk). */
export const hold: Hold = Object.freeze({ _tag: "Hold" })

/** Replace the held-back text of an afterModelChunk hook with `text`. */
export const replace = (text: string): Rewrite => ({ _tag: "Rewrite", text })

/** Abort the run with a reason (beforeModel). */
export const deny = (reason: string): Deny => ({ _tag: "Deny", reason })

/** Block with a reason. */
export const block = (reason: string): Block => ({ _tag: "Block", reason })

/** Add context for the model, or instructions for compaction. */
export const addContext = (text: string): AddContext => ({ _tag: "AddContext", text })

export {
  /** `AgentVerdict.continue`: the one Continue value. */
  cont as continue
}
