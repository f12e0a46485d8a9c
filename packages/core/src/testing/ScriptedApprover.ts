/**
 * A scripted approver for tests: it answers the policy's asks from a script, in order, and records
 * what it was asked, so a test can assert that an Ask reached a person, with which call and reason.
 */
import { Context, type Duration, Effect, Layer } from "effect"
import type { ConfigError } from "../model/Errors.ts"
import { type ApprovalAnswer, type ApprovalRequest, Approvals } from "../policy/Approvals.ts"

/** One answer of the script, or "never": no answer, so the approval times out (use TestClock). */
export type ScriptStep = ApprovalAnswer | "never"

/** What the scripted approver was asked, and how much of its script is left. */
export interface ScriptedApproverShape {
  /** Every request the approver got, in order (a copy). Asks answered from memory never reach it. */
  readonly asked: ReadonlyArray<ApprovalRequest>
  /** How many answers of the script are left. */
  readonly remaining: number
}

/** A scripted approver and its Layer, which provides Approvals and ScriptedApprover. */
export interface ScriptedApproval extends ScriptedApproverShape {
  readonly layer: Layer.Layer<Approvals | ScriptedApprover, ConfigError>
}

/** The reason of the deny given once the script has run out. */
export const SCRIPT_EXHAUSTED = "the approval script has no answer left"

/** The scripted approver, as a service, for Effect tests: `const { asked } = yield* ScriptedApprover`. */
export class ScriptedApprover
  extends Context.Service<ScriptedApprover, ScriptedApproverShape>()("@interlock/core/testing/ScriptedApprover")
{
  /**
   * Answers each ask with the script's next step; once it has run out, denies with
   * {@link SCRIPT_EXHAUSTED}. Built on `Approvals.layer`, so deadlines and remembered allows work as
   * in production. The script lives outside the Layer: make one per test.
   */
  static make(script: ReadonlyArray<ScriptStep>, options?: { readonly timeout?: Duration.Input }): ScriptedApproval {
    const steps = [...script]
    const asked: Array<ApprovalRequest> = []
    let next = 0
    const approver = (request: ApprovalRequest): Effect.Effect<ApprovalAnswer> =>
      Effect.suspend((): Effect.Effect<ApprovalAnswer> => {
        asked.push(request)
        const step = steps[next++]
        if (step === undefined) return Effect.succeed({ decision: "deny", reason: SCRIPT_EXHAUSTED })
        return step === "never" ? Effect.never : Effect.succeed(step)
      })
    const approvals = Approvals.layer(
      options?.timeout === undefined ? { approver } : { approver, timeout: options.timeout }
    )
    const self: ScriptedApproval = {
      get asked() {
        return asked.slice()
      },
      get remaining() {
        return Math.max(0, steps.length - next)
      },
      layer: approvals.pipe(Layer.merge(Layer.sync(ScriptedApprover, () => self)))
    }
    return self
  }
}
