/**
 * The afterModelChunk gate of one text of a model's answer: each delta goes through the hooks before anyone sees it.
 * A hook may pass the text held back so far (Continue), replace it (Rewrite), keep it back until the next delta (Hold:
 * how a secret split over two deltas is caught whole) or stop the answer (Block). What was held is never released
 * when a hook fails.
 */
import type { FailureKind } from "@interlock/core"
import { type Facts, type ModelHooks, runChain, STOP } from "./ModelHooks.ts"

/**
 * afterModelChunk's input: the `delta`; `pending`, the text held back with the delta at its end (what the verdict
 * decides); `released`, the text shown so far; `final`, true where the text ends (Hold is then refused); the model.
 */
export interface AfterModelChunkInput {
  readonly delta: string
  readonly pending: string
  readonly released: string
  readonly final: boolean
  readonly model: string
}

/** What a delta came to: text to show (maybe ""), held back, stopped by a hook, or a failed hook. */
export type GateStep =
  | { readonly _tag: "Release"; readonly text: string }
  | { readonly _tag: "Held" }
  | { readonly _tag: "Stopped"; readonly hookId: string; readonly reason: string }
  | { readonly _tag: "Failed"; readonly hookId: string; readonly kind: FailureKind }

const HELD: GateStep = { _tag: "Held" }
const noMessage = () => false

/** One text's gate; `push` must not be called again before its answer. */
export class ChunkGate {
  private pending = ""
  private released = ""
  private readonly hooks: ModelHooks
  private readonly model: string

  constructor(hooks: ModelHooks, model: string) {
    this.hooks = hooks
    this.model = model
  }

  /** Puts `delta` through the hooks; `final` says the text ends with it. With no hook, the delta is released. */
  async push(delta: string, final: boolean): Promise<GateStep> {
    const raw = this.pending + delta
    this.pending = ""
    if (this.hooks.afterModelChunk.length === 0) return this.release(raw)
    const input: AfterModelChunkInput = { delta, pending: raw, released: this.released, final, model: this.model }
    const facts: Facts = { tools: [], final, isMessage: noMessage }
    const end = await runChain(this.hooks, "afterModelChunk", {
      input: (pending) => ({ ...input, pending }),
      facts: () => facts,
      apply: (pending, verdict) =>
        verdict._tag === "Continue" ? pending : verdict._tag === "Rewrite" ? verdict.text ?? pending : STOP
    }, raw)
    if (end._tag === "Failed") return end
    if (end._tag === "Done") return this.release(end.state)
    if (end.verdict._tag === "Hold") {
      this.pending = raw
      return HELD
    }
    return { _tag: "Stopped", hookId: end.hookId, reason: end.verdict._tag === "Block" ? end.verdict.reason : "" }
  }

  private release(text: string): GateStep {
    this.released += text
    return { _tag: "Release", text }
  }
}
