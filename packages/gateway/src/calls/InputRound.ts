/**
 * A call that needs answers from the host before it can go on (a 2026-07-28 multi-round-trip request). A part of the
 * call path fails with InputRequired; the front answers the host `input_required` with its requests and sealed state,
 * and provides the retry's answers as the call's CurrentHostInput for the part that asked. A part inside core's
 * pipeline records it instead (`requireInput`).
 */
import { Context, Schema } from "effect"

/** The call cannot finish without the host's answers to `inputRequests`; `requestState` is sealed (StateSeal). */
export class InputRequired extends Schema.TaggedError<InputRequired>()("InputRequired", {
  inputRequests: Schema.Record(Schema.String, Schema.Unknown),
  requestState: Schema.String
}) {
  override get message(): string {
    return "the call needs input from the host"
  }
}

/**
 * What a request of a 2026-07-28 host carried: its answers by request key (`{}` on a first request), and the state it
 * echoed.
 */
export interface HostInput {
  readonly inputResponses: Readonly<Record<string, unknown>>
  readonly requestState: string | undefined
  /**
   * False when the host declared no form elicitation in its request's client capabilities (an approval then goes to the
   * console, as for a 2025 host without elicitation); absent or true, it can answer an elicitation.
   */
  readonly elicitation?: boolean | undefined
}

/**
 * The current request's host input: the front provides one for EVERY request of a 2026-07-28 host, the first one too
 * (then `inputResponses` is `{}` and `requestState` undefined), and never for a 2025-era host. So a defined one means
 * "this host answers input_required, and cannot be sent a server-to-client request". GatewayCalls gives each tool call
 * a copy of its own, which keys what the call records (`requireInput`, `grantApproval`).
 */
export const CurrentHostInput = Context.Reference<HostInput | undefined>("@interlock/gateway/CurrentHostInput", {
  defaultValue: () => undefined
})

// Keyed by the call's own HostInput (GatewayCalls gives each tool call a copy of its own).
const required = new WeakMap<object, InputRequired>()

/**
 * Records, from inside core's pipeline, that the call of `host` (its HostInput) needs the host's input: a part there
 * (the approver) cannot fail with InputRequired, since core's error channel has no place for it, so it records it here
 * and denies, and GatewayCalls answers the call with what `requiredInput` returns.
 */
export const requireInput = (host: HostInput, input: InputRequired): void => void required.set(host, input)

/** The InputRequired recorded for the call of `host`, taken (so it answers that call only). */
export const requiredInput = (host: HostInput | undefined): InputRequired | undefined => {
  if (host === undefined) return undefined
  const input = required.get(host)
  required.delete(host)
  return input
}

/**
 * What an approval granted within a call binds (ApprovalRound's binding): carried by a relayed round of the same call.
 */
export interface GrantedApproval {
  readonly digest: string
  readonly principal: string | null
  readonly rule: string | null
}

const granted = new WeakMap<object, GrantedApproval>()

/**
 * Records that the call of `host` was approved by its host, so that a round its server then leaves for the host carries
 * the approval.
 */
export const grantApproval = (host: HostInput, approval: GrantedApproval): void => void granted.set(host, approval)

/** The approval granted within the call of `host`, if any. */
export const grantedApproval = (host: HostInput | undefined): GrantedApproval | undefined =>
  host === undefined ? undefined : granted.get(host)
