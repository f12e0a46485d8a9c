/**
 * Approvals of 2026-07-28 hosts as multi-round-trip requests, with no gateway memory between the two: the first ask
 * (`askHost`) answers InputRequired with the approval form and a state sealed for "approval" that binds the call's
 * digest, the principal, the rule and an expiry; the retry is checked by `checkRetry`, on any replica holding the same
 * key.
 */
import type { ApprovalAnswer, ApprovalRequest } from "@interlock/core"
import { Effect, Schema } from "effect"
import { type SealRefused, StateSeal } from "../state/StateSeal.ts"
import { UsedStates } from "../state/UsedStates.ts"
import { APPROVAL_SCHEMA, describeRequest, elicitationAnswer } from "./ApprovalForm.ts"
import { RELAY_PURPOSE } from "./InputRelay.ts"
import { grantApproval, type HostInput, InputRequired } from "./InputRound.ts"
import { refuseState, type StateRefusal, StateRefused } from "./StateRefused.ts"

/** The purpose approval states are sealed for (a state sealed for another purpose is refused). */
export const APPROVAL_PURPOSE = "approval"

/** The key of the approval form among a call's input requests (and of its answer in the retry). */
export const APPROVAL_INPUT = "interlock_approval"

/** What an approval state binds: the call's digest, and who called under which rule (null when none). */
export interface ApprovalBinding {
  readonly digest: string
  readonly principal: string | null
  readonly rule: string | null
}

/** The binding an approval of `request` must carry. */
export const bindingOf = (request: ApprovalRequest): ApprovalBinding => ({
  digest: request.call.digest,
  principal: request.ctx.principal?.id ?? null,
  rule: request.rule ?? null
})

const SealedBinding = Schema.Struct({
  digest: Schema.String,
  principal: Schema.NullOr(Schema.String),
  rule: Schema.NullOr(Schema.String)
})
const decodeBinding = Schema.decodeUnknownOption(SealedBinding)

/**
 * Which binding of an opened state's payload differs from `expected` (digest first), or undefined when it binds exactly
 * that.
 */
export const bindingRefusal = (payload: unknown, expected: ApprovalBinding): StateRefusal | undefined => {
  const sealed = decodeBinding(payload)
  if (sealed._tag === "None") return "tampered"
  if (sealed.value.digest !== expected.digest) return "call"
  if (sealed.value.principal !== expected.principal) return "principal"
  if (sealed.value.rule !== expected.rule) return "rule"
  return undefined
}

const sealRefusal = (error: SealRefused): StateRefusal => (error.reason === "malformed" ? "tampered" : error.reason)

/**
 * The answer the approval form allows: an elicitation result whose content, when present, is
 * exactly `{ approve: boolean }`. Anything more (other fields, a nested or huge value) is no answer to this form.
 */
const FormAnswer = Schema.Struct({
  action: Schema.Literals(["accept", "decline", "cancel"]),
  content: Schema.optionalKey(Schema.Struct({ approve: Schema.Boolean })),
  _meta: Schema.optionalKey(Schema.Unknown)
})
const decodeAnswer = Schema.decodeUnknownOption(FormAnswer, { onExcessProperty: "error" })

/**
 * The host's answer to the approval form as an approval: anything but an explicit accept with `approve: true`, in the
 * form's shape, denies.
 */
export const hostAnswer = (answer: unknown, by: string): ApprovalAnswer => {
  const decoded = decodeAnswer(answer)
  return decoded._tag === "Some"
    ? elicitationAnswer(decoded.value, by)
    : { decision: "deny", reason: "the host's answer is not an answer to the approval form", via: "elicitation", by }
}

/** Whether the host's request answers the approval form (a retry), rather than being a first request. */
export const answersApproval = (input: HostInput): boolean => Object.hasOwn(input.inputResponses, APPROVAL_INPUT)

/** The first round: the approval form (`args` already redacted) and a state sealed for `ttlMs`. */
export const askHost = (
  request: ApprovalRequest,
  args: unknown,
  ttlMs: number
): Effect.Effect<InputRequired, never, StateSeal> =>
  Effect.gen(function*() {
    const seal = yield* StateSeal
    const requestState = yield* seal.seal(APPROVAL_PURPOSE, { ...bindingOf(request) }, ttlMs)
    const form = { mode: "form", message: describeRequest(request, args), requestedSchema: APPROVAL_SCHEMA }
    return new InputRequired({
      inputRequests: { [APPROVAL_INPUT]: { method: "elicitation/create", params: form } },
      requestState
    })
  })

/**
 * The retry: the host's answer, if its state opens, is unexpired, holds for this call, principal and rule, and was
 * never used (UsedStates); only an explicit accept with `approve: true` then allows. A refused state denies, and is
 * recorded for the call (StateRefused), which the host is then answered with.
 */
export const checkRetry = (
  request: ApprovalRequest,
  input: HostInput,
  by: string
): Effect.Effect<ApprovalAnswer, never, StateSeal | UsedStates> =>
  Effect.gen(function*() {
    const refused = (refusal: StateRefusal): ApprovalAnswer => {
      const error = new StateRefused({ of: "approval", refusal })
      refuseState(input, error)
      return { decision: "deny", reason: error.message, via: "elicitation" }
    }
    if (input.requestState === undefined) return refused("missing")
    const seal = yield* StateSeal
    const opened = yield* Effect.result(seal.open(APPROVAL_PURPOSE, input.requestState))
    if (opened._tag === "Failure") return refused(sealRefusal(opened.failure))
    const mismatch = bindingRefusal(opened.success.payload, bindingOf(request))
    if (mismatch !== undefined) return refused(mismatch)
    // Claimed only once the state holds for this call: a refused attempt does not spend the person's answer.
    const used = yield* UsedStates
    const claimed = yield* Effect.result(used.claim(opened.success.id, opened.success.expiresAtMs))
    if (claimed._tag === "Failure") return refused("unrecorded")
    if (!claimed.success) return refused("replayed")
    const answer = hostAnswer(input.inputResponses[APPROVAL_INPUT], by)
    if (answer.decision === "allow") grantApproval(input, bindingOf(request))
    return answer
  })

/**
 * A retry that answers a round the call's server left for the host after the host approved it:
 * the relayed state (sealed by this gateway for the relay) carries that approval, which holds when
 * it binds exactly this call, principal and rule. The relay claims the state once (InputRelay), so
 * the approval cannot be replayed with it.
 */
export const carriedApproval = (
  request: ApprovalRequest,
  input: HostInput,
  by: string
): Effect.Effect<ApprovalAnswer | undefined, never, StateSeal> =>
  Effect.gen(function*() {
    if (input.requestState === undefined) return undefined
    const opened = yield* Effect.result((yield* StateSeal).open(RELAY_PURPOSE, input.requestState))
    if (
      opened._tag === "Failure" || bindingRefusal(opened.success.payload.a, bindingOf(request)) !== undefined
    ) return undefined
    grantApproval(input, bindingOf(request))
    return { decision: "allow", via: "elicitation", by }
  })
