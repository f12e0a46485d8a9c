/**
 * One SDK request on a slot's session, with its failure mapped to core's errors (interruption aborts
 * it on the wire), and the tools/list that pins a server's tool fingerprints.
 */
import { ProtocolError, Timeout, type Tool, type TransportFailure } from "@interlock/core"
import type { Tool as SdkTool } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { toTools } from "../Convert.ts"
import { fromSdk, isTimeout, isUnreachable } from "../Failures.ts"
import type { Exchange, Session } from "../Session.ts"
import type { ListCacheHint, SlotState } from "./SlotState.ts"

// The exchange is among the session's requests in flight from sending until the request settles or is interrupted.
const sdkRequest = <A, E>(
  state: SlotState,
  session: Session,
  phase: string,
  run: (signal: AbortSignal) => Promise<A>,
  timedOut: (error: unknown) => E | undefined,
  exchange: Exchange | undefined
): Effect.Effect<A, TransportFailure | E> =>
  Effect.callback<A, TransportFailure | E>((resume, signal) => {
    const exchanges = exchange === undefined ? undefined : session.exchanges
    exchanges?.add(exchange as Exchange)
    const settled = () => void exchanges?.delete(exchange as Exchange)
    run(signal).then(
      (value) => {
        settled()
        resume(Effect.succeed(value))
      },
      (error) => {
        settled()
        const timeout = timedOut(error)
        if (timeout !== undefined) return resume(Effect.fail(timeout))
        // An HTTP request that could not be delivered at all: give the session up, so the next call reconnects.
        if (isUnreachable(error)) session.lose(`the server could not be reached ${phase}`)
        resume(Effect.fail(fromSdk(state.config.id, error, () => session.describeEnd(), phase)))
      }
    )
    return exchanges === undefined ? undefined : Effect.sync(settled)
  })

/**
 * Runs one SDK request on a session (`phase` names it in errors), mapping its failure; interruption aborts it on the
 * wire. With `exchange`, the request is among the session's exchanges while in flight (Session.exchanges).
 */
export const request = <A>(
  state: SlotState,
  session: Session,
  phase: string,
  run: (signal: AbortSignal) => Promise<A>,
  exchange?: Exchange
): Effect.Effect<A, TransportFailure> => sdkRequest<A, never>(state, session, phase, run, () => undefined, exchange)

/** {@link request} under a call's deadline: the SDK's request timeout is `deadlineMs`, and becomes core's Timeout. */
export const deadlineRequest = <A>(
  state: SlotState,
  session: Session,
  phase: string,
  run: (signal: AbortSignal) => Promise<A>,
  deadlineMs: number,
  exchange?: Exchange
): Effect.Effect<A, TransportFailure | Timeout> =>
  sdkRequest(
    state,
    session,
    phase,
    run,
    (error) => (isTimeout(error) ? new Timeout({ millis: deadlineMs }) : undefined),
    exchange
  )

/** Lists the server's tools (all pages), records their fingerprints and reports changed ones. */
export const fetchTools = (
  state: SlotState,
  session: Session
): Effect.Effect<ReadonlyArray<Tool>, TransportFailure> => {
  const id = state.config.id
  // A server without the tools capability is not asked (the SDK would print a debug line to stdout).
  const offered = session.client.getServerCapabilities()?.tools !== undefined
  const listed: Effect.Effect<{ readonly tools: ReadonlyArray<SdkTool> } & ListCacheHint, TransportFailure> = !offered
    ? Effect.succeed({ tools: [] })
    : request(
      state,
      session,
      "during tools/list",
      (signal) =>
        session.client.listTools(undefined, { signal, timeout: state.config.requestTimeoutMs, cacheMode: "refresh" })
    )
  return Effect.flatMap(listed, (listed): Effect.Effect<ReadonlyArray<Tool>, TransportFailure> => {
    const tools = toTools(id, listed.tools)
    if (tools instanceof ProtocolError) return Effect.fail(tools)
    state.toolsCacheHint = session.modern ? { ttlMs: listed.ttlMs, cacheScope: listed.cacheScope } : undefined
    return Effect.map(state.hub.pins.record(id, tools), (changes) => {
      if (changes.length > 0) state.hub.reportChanges(changes)
      return tools
    })
  })
}
