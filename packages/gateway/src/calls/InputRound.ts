/**
 * A call that needs answers from the host before it can go on (a multi-round-trip request of the
 * 2026-07-28 revision). A part of the call path fails with InputRequired; the front answers the
 * host `input_required` with its requests and sealed state. The host's retry carries the answers,
 * which the front puts in the call's assigns under HOST_INPUT_KEY for the part that asked.
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

/** What a retried request carried: the host's answers by request key, and the state it echoed. */
export interface HostInput {
  readonly inputResponses: Readonly<Record<string, unknown>>
  readonly requestState: string | undefined
}

/** The host input of a call's assigns, when the request was a retry with answers. */
export const hostInput = (assigns: Readonly<Record<string, unknown>> | undefined): HostInput | undefined => {
  const value = assigns?.[HOST_INPUT_KEY]
  return typeof value === "object" && value !== null && "inputResponses" in value ? value as HostInput : undefined
}
