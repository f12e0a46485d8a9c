/**
 * A call that needs answers from the host before it can go on (a multi-round-trip request of the
 * 2026-07-28 revision). A part of the call path fails with InputRequired; the front answers the
 * host `input_required` with its requests and sealed state. The host's retry carries the answers,
 * which the front puts in the call's assigns under HOST_INPUT_KEY for the part that asked.
 *
 * The signal the front and the call path agree on: the front puts a HostInput under
 * HOST_INPUT_KEY in the assigns of EVERY tools/call of a 2026-07-28 host, the first request
 * too (then `inputResponses` is `{}` and `requestState` undefined), and never for a 2025-era host.
 * So `hostInput(assigns) !== undefined` means "this host answers input_required, and cannot be
 * sent a server-to-client request". `elicitation: false` says the host declared no form
 * elicitation in its request's client capabilities (an approval then goes to the console, as for
 * a 2025 host without elicitation). A part inside core's pipeline (the approver) cannot fail
 * with InputRequired, since core's error channel has no place for it: it records the failure with
 * `requireInput` and denies, and GatewayCalls answers the call with what `requiredInput` returns.
 */
import { Schema } from "effect"

/** The call cannot finish without the host's answers to `inputRequests`; `requestState` is sealed (StateSeal). */
export class InputRequired extends Schema.TaggedError<InputRequired>()("InputRequired", {
  inputRequests: Schema.Record(Schema.String, Schema.Unknown),
  requestState: Schema.String
}) {
  override get message(): string {
    return "the call needs input from the host"
  }
}

/** The assigns key under which a retried request's answers reach the call path. */
export const HOST_INPUT_KEY = "interlock.hostInput"

/** What a request of a 2026-07-28 host carried: its answers by request key (`{}` on a first request), and the state it echoed. */
export interface HostInput {
  readonly inputResponses: Readonly<Record<string, unknown>>
  readonly requestState: string | undefined
  /** False when the host declared no form elicitation; absent or true, it can answer an elicitation. */
  readonly elicitation?: boolean | undefined
}

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The host input of a call's assigns: defined exactly for a 2026-07-28 host's request. The values
 * came from the host: answers that are not an object read as none, a state that is not a string as absent.
 */
export const hostInput = (assigns: Readonly<Record<string, unknown>> | undefined): HostInput | undefined => {
  const value = assigns?.[HOST_INPUT_KEY]
  if (!isRecord(value) || !("inputResponses" in value)) return undefined
  return {
    inputResponses: isRecord(value.inputResponses) ? value.inputResponses : {},
    requestState: typeof value.requestState === "string" ? value.requestState : undefined,
    ...(value.elicitation === false ? { elicitation: false } : {})
  }
}

// Keyed by the call's own assigns object (GatewayCalls gives each such call a fresh one).
const required = new WeakMap<object, InputRequired>()

/** Records, from inside core's pipeline, that the call of `assigns` needs the host's input. */
export const requireInput = (assigns: object, input: InputRequired): void => void required.set(assigns, input)

/** The InputRequired recorded for the call of `assigns`, taken (so it answers that call only). */
export const requiredInput = (assigns: object | undefined): InputRequired | undefined => {
  if (assigns === undefined) return undefined
  const input = required.get(assigns)
  required.delete(assigns)
  return input
}

/** What an approval granted within a call binds (ApprovalRound's binding): carried by a relayed round of the same call. */
export interface GrantedApproval {
  readonly digest: string
  readonly principal: string | null
  readonly rule: string | null
}

const granted = new WeakMap<object, GrantedApproval>()

/** Records that the call of `assigns` was approved by its host, so that a round its server then leaves for the host carries the approval. */
export const grantApproval = (assigns: object, approval: GrantedApproval): void => void granted.set(assigns, approval)

/** The approval granted within the call of `assigns`, if any. */
export const grantedApproval = (assigns: object | undefined): GrantedApproval | undefined =>
  assigns === undefined ? undefined : granted.get(assigns)
