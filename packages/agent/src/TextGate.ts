/**
 * The afterModelChunk gate of one turn's text: each delta goes through the hooks before anyone sees
 * it. A hook may pass the text held back so far (Continue), replace it (Rewrite), keep it back until
 * the next delta (Hold: how a secret split over two deltas is caught whole) or stop the turn (Block).
 * The event fails closed: a failing hook ends the run, and what was held back is never released.
 */
import { Effect } from "effect"
import { runEvent, STOP } from "./AgentHookRunner.ts"
import { type End, guardEnd, hookEnv, type LoopEnv, type Progress } from "./RunContext.ts"

/** The gate's state for one turn: the text held back, and the text released so far. */
export interface TextGate {
  readonly turn: number
  pending: string
  released: string
}

/** What a delta came to: text to release (maybe ""), held back, the turn stopped by a hook, or the run ended. */
export type GateStep =
  | { readonly _tag: "Release"; readonly text: string }
  | { readonly _tag: "Held" }
  | { readonly _tag: "Stopped"; readonly hookId: string; readonly reason: string }
  | { readonly _tag: "Failed"; readonly end: End }

const HELD: GateStep = { _tag: "Held" }

/** A new gate. */
export const openGate = (turn: number): TextGate => ({ turn, pending: "", released: "" })

/**
 * Puts a delta through the gate; `final` says the text ends with it (Hold is then refused). With no
 * afterModelChunk hook, the delta is released at once (no Effect).
 */
export const passDelta = (
  env: LoopEnv,
  progress: Progress,
  gate: TextGate,
  delta: string,
  final: boolean
): GateStep | Effect.Effect<GateStep> => {
  if (env.hooks.afterModelChunk.length === 0) {
    gate.released += delta
    return { _tag: "Release", text: delta }
  }
  const raw = gate.pending + delta
  const turn = gate.turn
  const released = gate.released
  return Effect.map(
    runEvent(hookEnv(env, progress), "afterModelChunk", {
      input: (pending: string) => ({ delta, pending, released, final, model: env.model, turn }),
      final: () => final,
      apply: (pending, verdict) =>
        verdict._tag === "Rewrite" ? verdict.text ?? pending : verdict._tag === "Continue" ? pending : STOP
    }, raw),
    (end): GateStep => {
      if (end._tag === "Failed") {
        gate.pending = ""
        return { _tag: "Failed", end: guardEnd("afterModelChunk", end) ?? { status: "error" } }
      }
      if (end._tag === "Stopped") {
        if (end.verdict._tag === "Hold") {
          gate.pending = raw
          return HELD
        }
        gate.pending = ""
        const reason = end.verdict._tag === "Block" ? end.verdict.reason : ""
        return { _tag: "Stopped", hookId: end.hook.id, reason }
      }
      gate.pending = ""
      gate.released += end.state
      return { _tag: "Release", text: end.state }
    }
  )
}
