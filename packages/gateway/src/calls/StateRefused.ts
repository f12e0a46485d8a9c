/**
 * A host's retry of a 2026-07-28 multi-round-trip request whose `requestState` the gateway refused (STATE_REFUSALS).
 * The front answers it with a JSON-RPC error (invalid params), as the revision says a server must answer a state that
 * fails its checks; its message names only the kind of refusal, never the state. A part inside core's pipeline (the
 * approver) records it with `refuseState` and denies; GatewayCalls answers with `refusedState`.
 */
import { Schema } from "effect"

/**
 * Why a state was refused: not sealed by this gateway or changed, expired, used before, or bound to another call,
 * principal or rule (REFUSAL_TEXT).
 */
export const STATE_REFUSALS = [
  "missing",
  "tampered",
  "expired",
  "purpose",
  "call",
  "principal",
  "rule",
  "replayed",
  "unrecorded"
] as const

/** Why a state was refused, as a type. */
export type StateRefusal = typeof STATE_REFUSALS[number]

/** The fixed text of each refusal: it says why, never what the state or the call holds. */
export const REFUSAL_TEXT: Readonly<Record<StateRefusal, string>> = {
  missing: "the retry carried no state",
  tampered: "it is not a state this gateway sealed, or it was changed",
  expired: "it has expired",
  purpose: "it was sealed for another purpose",
  call: "it belongs to another call (the tool, the request or its arguments differ)",
  principal: "it belongs to another principal",
  rule: "it was asked by another rule",
  replayed: "it was used before",
  unrecorded: "its single use could not be recorded"
}

/** JSON-RPC's invalid params: the state the host sent back is not one this request may carry. */
const INVALID_PARAMS = -32602

/** JSON-RPC's internal error: the gateway could not record the state's single use. */
const INTERNAL_ERROR = -32603

/** The state of an approval (`approval`) or of a server's round relayed to the host (`relayed`) was refused. */
export class StateRefused extends Schema.TaggedError<StateRefused>()("StateRefused", {
  of: Schema.Literals(["approval", "relayed"]),
  refusal: Schema.Literals(STATE_REFUSALS)
}) {
  override get message(): string {
    return `the ${this.of === "approval" ? "approval" : "relayed request"} state was refused (${this.refusal}): ${
      REFUSAL_TEXT[this.refusal]
    }`
  }

  /** The JSON-RPC error code the host is answered with. */
  get code(): number {
    return this.refusal === "unrecorded" ? INTERNAL_ERROR : INVALID_PARAMS
  }
}

// Keyed by the call's own HostInput (InputRound.ts; GatewayCalls gives each 2026-07-28 host's call one of its own).
const refused = new WeakMap<object, StateRefused>()

/** Records, from inside core's pipeline, that the call of `host` (its HostInput) carried a refused state. */
export const refuseState = (host: object | undefined, refusal: StateRefused): void => {
  if (host !== undefined) refused.set(host, refusal)
}

/** The refusal recorded for the call of `host`, taken (so it answers that call only). */
export const refusedState = (host: object | undefined): StateRefused | undefined => {
  if (host === undefined) return undefined
  const refusal = refused.get(host)
  refused.delete(host)
  return refusal
}
