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

/** Replace the working messages and/or tools for the rest of the run (beforeModel). */
export interface Rewrite {
  readonly _tag: "Rewrite"
  readonly messages?: ReadonlyArray<Prompt.Message | Prompt.MessageEncoded> | undefined
  /** A subset of the tools the hook was given (by name); [] sends no tools at all. */
  readonly tools?: ReadonlyArray<AgentTool | string> | undefined
}

/** Abort the run (beforeModel). */
export interface Deny {
  readonly _tag: "Deny"
  readonly reason: string
}

/** Block: the prompt or subagent is refused; for stop events, the loop goes on with `reason`. */
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
export type AgentVerdict = Continue | Rewrite | Deny | Block | AddContext

/** The one Continue value. */
export const cont: Continue = Object.freeze({ _tag: "Continue" })

/** Rewrite messages and/or tools for the rest of the run. */
export const rewrite = (patch: Omit<Rewrite, "_tag">): Rewrite => ({ _tag: "Rewrite", ...patch })

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
