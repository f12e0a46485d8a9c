/**
 * What a slot's earlier sessions were asked, applied to a new one: the resource subscriptions and
 * the logging level of the hub's users. A server that refuses them still serves its tools: the
 * refusal is only logged (it names no URI).
 */
import type { TransportFailure } from "@interlock/core"
import { Effect } from "effect"
import type { Session } from "../Session.ts"
import { request } from "./SlotRequests.ts"
import type { SlotState } from "./SlotState.ts"

/**
 * Subscribes a session to resource updates: `resources/subscribe` per URI on a 2025-era
 * connection, one `subscriptions/listen` stream with every URI on a 2026-07-28 one.
 */
export const applySubscriptions = (
  state: SlotState,
  session: Session,
  uris: ReadonlyArray<string>
): Effect.Effect<void, TransportFailure> => {
  const timeout = state.config.requestTimeoutMs
  if (!session.modern) {
    return Effect.forEach(
      uris,
      (uri) =>
        request(
          state,
          session,
          "during resources/subscribe",
          (signal) => session.client.subscribeResource({ uri }, { signal, timeout })
        ),
      { discard: true }
    )
  }
  return request(state, session, "during subscriptions/listen", async (signal) => {
    const previous = session.listen
    session.listen = state.subscriptions.size === 0
      ? undefined
      : await session.client.listen({ resourceSubscriptions: [...state.subscriptions] }, { signal, timeout })
    await previous?.close()
  })
}

/** Re-applies the subscriptions and logging level of earlier sessions to `session`. */
export const restore = (state: SlotState, session: Session): Effect.Effect<void> => {
  if (state.subscriptions.size === 0 && state.loggingLevel === undefined) return Effect.void
  const level = state.loggingLevel
  const steps: Array<Effect.Effect<unknown, TransportFailure>> = []
  if (state.subscriptions.size > 0) steps.push(applySubscriptions(state, session, [...state.subscriptions]))
  if (level !== undefined && !session.modern) {
    steps.push(
      request(
        state,
        session,
        "during logging/setLevel",
        (signal) => session.client.setLoggingLevel(level, { signal, timeout: state.config.requestTimeoutMs })
      )
    )
  }
  return Effect.forEach(
    steps,
    (step) =>
      step.pipe(Effect.catch(() => Effect.logWarning("MCP server refused a restored subscription or logging level"))),
    { discard: true }
  ).pipe(Effect.annotateLogs({ "interlock.server": state.config.id }))
}
