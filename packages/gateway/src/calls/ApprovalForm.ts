/**
 * The form a person approves a call with, on every route that asks the caller's host (a 2025
 * elicitation request, or a 2026-07-28 input request): its text (the tool, the rule's reason and
 * the redacted arguments), its schema, and how its answer reads. Only `accept` with `approve`
 * exactly `true` allows.
 */
import type { ApprovalAnswer, ApprovalRequest } from "@interlock/core"
import type { ElicitRequestFormParams } from "@modelcontextprotocol/server"

/** The approval form's schema. No default: a host that fills a form with its defaults must not approve anything. */
export const APPROVAL_SCHEMA: ElicitRequestFormParams["requestedSchema"] = {
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
  const approve = typeof content === "object" && content !== null
    ? (content as { readonly approve?: unknown }).approve
    : undefined
  if (answer.action === "accept" && approve === true) {
    return { decision: "allow", remember: "once", via: "elicitation", by }
  }
  const reason = answer.action === "accept" ? "the approval form did not say approve: true" : "the user declined"
  return { decision: "deny", reason, via: "elicitation", by }
}

/** The text of an approval request: the tool, why it is asked, and the redacted arguments. */
export const describeRequest = (request: ApprovalRequest, args: unknown): string =>
  `Interlock: approve the call ${request.call.serverId}/${request.call.name}` +
  `${request.ctx.principal === undefined ? "" : ` by ${request.ctx.principal.id}`}? ` +
  `Reason: ${request.reason}. Arguments: ${JSON.stringify(args)}`
