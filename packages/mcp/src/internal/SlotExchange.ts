/**
 * A request that a 2026-07-28 server may answer `input_required` (tools/call, prompts/get,
 * resources/read): on such a session it is driven as a round trip for the current caller
 * (RoundTrip.ts), each leg under what is left of the deadline; on a 2025 session it is sent once,
 * or parked for a caller without a channel for the server's requests (ParkedCall.ts).
 */
import { Timeout, type TransportFailure } from "@interlock/core"
import type { InputRequiredResult } from "@modelcontextprotocol/client"
import { Clock, Effect } from "effect"
import type { Caller, Operation, Resume } from "../Caller.ts"
import { callerCapabilities, PARK_LIFETIME_MS, parkedExchange } from "../ParkedCall.ts"
import { roundTrip } from "../RoundTrip.ts"
import type { Exchange, Session } from "../Session.ts"
import { type ChildSlot, type ChildSlots, onOwnSession } from "./ChildSlots.ts"
import { deadlineRequest, request } from "./SlotRequests.ts"
import type { SlotState } from "./SlotState.ts"

/**
 * How a leg of an exchange is sent: with the resume it carries, on `on`, with `timeout` ms left when there is a
 * deadline.
 */
export type ExchangeRun<A> = (
  resume: Resume | undefined,
  signal: AbortSignal,
  timeout: number | undefined,
  on: Session
) => Promise<A | InputRequiredResult>

/** Sends `op` on `session` as its era wants, under `deadlineMs` when given (core's Timeout after it). */
export const exchange = <A, S extends ChildSlot>(
  state: SlotState,
  children: ChildSlots<S>,
  session: Session,
  op: Operation,
  caller: Caller | undefined,
  phase: string,
  run: ExchangeRun<A>,
  deadlineMs?: number
): Effect.Effect<A, TransportFailure | Timeout> => {
  // One leg, with `left` ms of the deadline when there is one; a 2025 one is among the session's exchanges.
  const send = (resume: Resume | undefined, left: number | undefined, exchange?: Exchange) =>
    deadlineMs === undefined
      ? request(state, session, phase, (signal) => run(resume, signal, undefined, session), exchange)
      : deadlineRequest(state, session, phase, (signal) => run(resume, signal, left, session), deadlineMs, exchange)
  // A 2025 session has no input_required: its answer is the result, sent once with the whole deadline. A caller
  // without a channel for the server's requests has the request parked, so that they can be relayed to it
  // (ParkedCall.ts).
  if (!session.modern) {
    const relay = caller?.relay
    if (caller === undefined || relay === undefined) {
      return send(undefined, deadlineMs, {}) as Effect.Effect<A, TransportFailure | Timeout>
    }
    const parked = (exchange: Exchange) => (on: Session) =>
      request(state, on, phase, (signal) => run(undefined, signal, PARK_LIFETIME_MS, on), exchange) as Effect.Effect<
        A,
        TransportFailure
      >
    // On a per-host server the request gets a session of its own, declaring its host's capabilities.
    const sendParked = (exchange: Exchange) =>
      state.config.sessions === "per-host"
        ? onOwnSession(state, children, callerCapabilities(state.hub.host, caller), parked(exchange))
        : parked(exchange)(session)
    return parkedExchange(state.parks, op, caller, relay, sendParked, state.hub.fork, deadlineMs)
  }
  // Each leg of a round trip gets what is left of the deadline.
  return Effect.flatMap(Clock.currentTimeMillis, (started) => {
    const leg = (resume: Resume | undefined): Effect.Effect<A | InputRequiredResult, TransportFailure | Timeout> =>
      deadlineMs === undefined
        ? send(resume, undefined)
        : Effect.flatMap(Clock.currentTimeMillis, (now) => send(resume, Math.max(1, started + deadlineMs - now)))
    const rounds = roundTrip<A>(op, state.hub.host, leg)
    return deadlineMs === undefined
      ? rounds
      : Effect.timeoutOrElse(rounds, {
        duration: deadlineMs,
        orElse: () => Effect.fail(new Timeout({ millis: deadlineMs }))
      })
  })
}
