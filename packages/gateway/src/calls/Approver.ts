/**
 * The gateway's approver for the policy's `ask`: an elicitation request to the caller's host when
 * the host supports it (only an explicit `approve: true` allows, for this call's digest only),
 * otherwise a pending approval in the web console. Arguments shown to the person are redacted.
 * Approvals' timeout means deny.
 */
import type { ElicitRequestFormParams } from "@modelcontextprotocol/server"
import type { ApprovalAnswer, ApprovalRequest } from "@interlock/core"
import { Effect } from "effect"
import { ApprovalQueue } from "./ApprovalQueue.ts"
import { LOCAL_USER } from "../console/ConsoleAccess.ts"
import { type Redaction, redactionsFor, redactJson } from "../governance/Redactor.ts"

/** The key under which the serving layer puts the host's elicitation function in `ctx.assigns`. */
export const ELICIT_KEY = "interlock.elicit"

/** An elicitation request to the host, as the serving layer offers it. */
export type Elicit = (params: {
  readonly message: string
  readonly requestedSchema: ElicitRequestFormParams["requestedSchema"]
}) => Promise<{ readonly action: string; readonly content?: Record<string, unknown> | undefined }>

/** Where approvals go: auto (elicitation when the host supports it, else the console), or one of them. */
export type ApprovalRoute = "auto" | "elicitation" | "console"

// No default: a host that fills a form with its defaults must not approve anything.
const SCHEMA: ElicitRequestFormParams["requestedSchema"] = {
  type: "object",
  properties: { approve: { type: "boolean", title: "Approve this call" } },
  required: ["approve"]
}

/** An elicitation's answer as an approval: only `accept` with `approve` exactly `true` allows. */
export const elicitationAnswer = (
  answer: { readonly action: unknown; readonly content?: unknown },
  by: string
): ApprovalAnswer => {
  const content = answer.content
  const approve = typeof content === "object" && content !== null ? (content as { readonly approve?: unknown }).approve : undefined
  if (answer.action === "accept" && approve === true) return { decision: "allow", remember: "once", via: "elicitation", by }
  const reason = answer.action === "accept" ? "the approval form did not say approve: true" : "the user declined"
  return { decision: "deny", reason, via: "elicitation", by }
}

/** The text of an approval request: the tool, why it is asked, and the redacted arguments. */
export const describeRequest = (request: ApprovalRequest, args: unknown): string =>
  `Interlock: approve the call ${request.call.serverId}/${request.call.name}` +
  `${request.ctx.principal === undefined ? "" : ` by ${request.ctx.principal.id}`}? ` +
  `Reason: ${request.reason}. Arguments: ${JSON.stringify(args)}`

/** Builds the approver function for `Approvals.layer`. */
export const makeApprover = (redactions: ReadonlyArray<Redaction>, route: ApprovalRoute) => (request: ApprovalRequest) =>
  Effect.gen(function*() {
    const args = redactJson(request.call.args, redactionsFor(redactions, request.call.serverId, request.call.name))
    const elicit = request.ctx.assigns[ELICIT_KEY]
    if (route !== "console" && typeof elicit === "function") {
      const answer = yield* Effect.tryPromise(() => (elicit as Elicit)({ message: describeRequest(request, args), requestedSchema: SCHEMA }))
      // The caller's own host answers: it is the caller (or the local user) who confirms.
      return elicitationAnswer(answer, request.ctx.principal?.id ?? LOCAL_USER)
    }
    if (route === "elicitation") return { decision: "deny", reason: "the host does not support elicitation" } as ApprovalAnswer
    const queue = yield* ApprovalQueue
    // The queue's entry is this call's: an answer to it binds exactly this digest.
    const answer = yield* queue.wait({
      server: request.call.serverId,
      tool: request.call.name,
      principal: request.ctx.principal?.id,
      reason: request.reason,
      rule: request.rule,
      digest: request.call.digest,
      args
    })
    return { ...answer, via: "console" as const }
  })
