/**
 * The gateway's approver for the policy's `ask`: the caller's host is asked when it supports it, otherwise a pending
 * approval waits in the web console. A 2025 host gets an elicitation request; a 2026-07-28 host an input request with a
 * sealed state, and approves in its retry (ApprovalRound). Only an explicit `approve: true` allows, for this call's
 * digest only; arguments shown are redacted; Approvals' timeout means deny.
 */
import type { ApprovalAnswer, ApprovalRequest } from "@interlock/core"
import type { ElicitRequestFormParams } from "@modelcontextprotocol/server"
import { Context, Effect } from "effect"
import type { ApprovalRoute } from "../config/Plan.ts"
import { LOCAL_USER } from "../config/PrincipalNames.ts"
import { type Redaction, redactionsFor, redactJson } from "../governance/Redactor.ts"
import { ApprovalQueue } from "../state/ApprovalQueue.ts"
import { APPROVAL_SCHEMA, describeRequest, elicitationAnswer } from "./ApprovalForm.ts"
import { CurrentApprovalProgress, withApprovalProgress } from "./ApprovalProgress.ts"
import { answersApproval, askHost, carriedApproval, checkRetry } from "./ApprovalRound.ts"
import { CurrentHostInput, requireInput } from "./InputRound.ts"

export { describeRequest, elicitationAnswer } from "./ApprovalForm.ts"

/** An elicitation request to the host, as the serving layer offers it. */
export type Elicit = (params: {
  readonly message: string
  readonly requestedSchema: ElicitRequestFormParams["requestedSchema"]
}) => Promise<{ readonly action: string; readonly content?: Record<string, unknown> | undefined }>

/** The current call's host elicitation, when its host can be asked (a 2025 host that declared elicitation). */
export const CurrentElicit = Context.Reference<Elicit | undefined>("@interlock/gateway/CurrentElicit", {
  defaultValue: () => undefined
})

/** The deny reason of a first ask to a 2026-07-28 host: the call ends `input_required` (GatewayCalls). */
export const ASKED_HOST = "approval asked of the host"

/** Builds the approver function for `Approvals.layer`; `ttlMs` bounds a 2026-07-28 host's answer. */
export const makeApprover =
  (redactions: ReadonlyArray<Redaction>, route: ApprovalRoute, ttlMs: number) => (request: ApprovalRequest) =>
    Effect.gen(function*() {
      const args = redactJson(request.call.args, redactionsFor(redactions, request.call.serverId, request.call.name))
      // The caller's own host answers: it is the caller (or the local user) who confirms.
      const by = request.ctx.principal?.id ?? LOCAL_USER
      const input = yield* CurrentHostInput
      const elicit = yield* CurrentElicit
      const progress = yield* CurrentApprovalProgress
      if (route !== "console" && input !== undefined && input.elicitation !== false) {
        if (answersApproval(input)) return yield* checkRetry(request, input, by)
        const carried = yield* carriedApproval(request, input, by)
        if (carried !== undefined) return carried
        requireInput(input, yield* askHost(request, args, ttlMs))
        return { decision: "deny", reason: ASKED_HOST, via: "elicitation" } as ApprovalAnswer
      }
      if (route !== "console" && input === undefined && elicit !== undefined) {
        const answer = yield* withApprovalProgress(
          Effect.tryPromise(() =>
            elicit({ message: describeRequest(request, args), requestedSchema: APPROVAL_SCHEMA })
          ),
          progress,
          "asked of the host"
        )
        return elicitationAnswer(answer, by)
      }
      if (route === "elicitation") {
        return { decision: "deny", reason: "the host does not support elicitation" } as ApprovalAnswer
      }
      const queue = yield* ApprovalQueue
      // The queue's entry is this call's: an answer to it binds exactly this digest.
      const answer = yield* withApprovalProgress(
        queue.wait({
          server: request.call.serverId,
          tool: request.call.name,
          principal: request.ctx.principal?.id,
          reason: request.reason,
          rule: request.rule,
          digest: request.call.digest,
          args
        }),
        progress,
        "in the web console"
      )
      return { ...answer, via: "console" as const }
    })
