/**
 * The verdicts a model-level hook of the adapters answers, typed from their rows (ModelHooks.ts). As everywhere in
 * Interlock there is no Allow: a hook may narrow the model call (Rewrite, Deny) or its text (Replace, Hold, Block).
 */
import type { MODEL_EVENT_ROWS } from "./ModelHooks.ts"

type Rows = typeof MODEL_EVENT_ROWS
type Of<E extends keyof Rows, T extends keyof Rows[E]["verdicts"]> = Rows[E]["verdicts"][T] extends
  { readonly schema: { readonly Type: infer V } } ? V : never

/** Go on unchanged. */
export type Continue = Of<"beforeModel", "Continue">

/** beforeModel: the framework's messages and/or a subset of the offered tools, by name. */
export type Rewrite = Of<"beforeModel", "Rewrite">

/** afterModelChunk: what replaces the text held back so far. */
export type Replace = Of<"afterModelChunk", "Rewrite">

/** afterModelChunk: keep the text back until the next delta (refused where the text ends). */
export type Hold = Of<"afterModelChunk", "Hold">

/** beforeModel: refuse the model call. */
export type Deny = Of<"beforeModel", "Deny">

/** afterModelChunk: stop the answer; the held-back text and the answer's tool calls are dropped. */
export type Block = Of<"afterModelChunk", "Block">

/** The one Continue value. */
export const cont: Continue = Object.freeze({ _tag: "Continue" })

/** Rewrite the messages and/or narrow the tools of this model call. */
export const rewrite = (patch: Omit<Rewrite, "_tag">): Rewrite => ({ _tag: "Rewrite", ...patch })

/** Replace the held-back text with `text`. */
export const replace = (text: string): Replace => ({ _tag: "Rewrite", text })

/** The one Hold value. */
export const hold: Hold = Object.freeze({ _tag: "Hold" })

/** Refuse the model call with a reason. */
export const deny = (reason: string): Deny => ({ _tag: "Deny", reason })

/** Stop the answer with a reason. */
export const block = (reason: string): Block => ({ _tag: "Block", reason })

export {
  /** `ModelVerdict.continue`: the one Continue value. */
  cont as continue
}
