/**
 * A slot's connection lifetime: connects lazily (or eagerly), shares one connection attempt among
 * concurrent callers, retries a failed attempt on the server's backoff Schedule, and forgets a
 * session that ended so that the next call reconnects. A session is handed out once its tools are
 * pinned and what earlier sessions were asked is restored (SlotRestore).
 */
import { TransportError, type TransportFailure } from "@interlock/core"
import { Cause, Deferred, Effect, Exit } from "effect"
import { listenForChanges } from "../ChangeListen.ts"
import { endedAtStart, fromSdk, isRetryable, spawnFailed } from "../Failures.ts"
import { OpenFailed, openSession, type Session, type SessionEvents } from "../Session.ts"
import { fetchTools } from "./SlotRequests.ts"
import { restore } from "./SlotRestore.ts"
import { type SlotState, trackClosing } from "./SlotState.ts"

const hubClosed = (serverId: string) => new TransportError({ serverId, detail: "the hub is closed" })

/** The error for a request to a per-principal server that names no principal: it is not sent. */
export const noPrincipal = (serverId: string) =>
  new TransportError({
    serverId,
    detail: "no credential: the server's sessions are per principal, and this request names none, so it was not sent"
  })

const isSpawnError = (error: unknown): boolean => {
  const syscall = (error as { syscall?: unknown } | null)?.syscall
  return typeof syscall === "string" && syscall.startsWith("spawn")
}

/** What the slot's sessions tell it: a session closed, its tool list changed, a notification. */
export const sessionEvents = (state: SlotState): SessionEvents => ({
  onClose: (session) => {
    if (state.session === session) state.session = undefined
    state.sessions.delete(session)
    // Reap what is left of it (a crashed child's pipes); closeAll waits for this too.
    trackClosing(state, session.close())
  },
  onToolsListChanged: (session) => {
    if (!session.alive) return
    if (session.refreshing++ === 0) session.refreshed = Deferred.makeUnsafe()
    const settle = Effect.sync(() => {
      if (--session.refreshing === 0) Deferred.doneUnsafe(session.refreshed, Exit.void)
      if (session.alive) state.hub.notify({ serverId: state.config.id, method: "notifications/tools/list_changed" })
    })
    if (!state.hub.fork(fetchTools(state, session).pipe(Effect.ignore, Effect.ensuring(settle)))) {
      Effect.runSync(settle)
    }
  },
  onNotification: (_session, notification) => state.hub.notify(notification)
})

const openError = (state: SlotState, error: unknown): TransportFailure => {
  const id = state.config.id
  const cause = error instanceof OpenFailed ? error.cause : error
  const describe = error instanceof OpenFailed ? error.describeEnd : () => undefined
  const endpoint = state.config.endpoint
  if (endpoint._tag === "stdio" && isSpawnError(cause)) return spawnFailed(id, endpoint.options.command, cause)
  if (error instanceof OpenFailed && error.endedAtStart) return endedAtStart(id, error.describeEnd())
  return fromSdk(id, cause, describe, "during initialize")
}

/** One attempt: open the session, then list its tools to pin their fingerprints, and restore it. */
const connectOnce = (state: SlotState, events: SessionEvents): Effect.Effect<Session, TransportFailure> => {
  const config = state.config
  const open = Effect.callback<Session, TransportFailure>((resume, signal) => {
    const opening = openSession(config, state.hub.clientInfo, state.hub.host, events, signal, state.principal)
    opening.then(
      (session) => {
        state.sessions.add(session)
        resume(Effect.succeed(session))
      },
      (error) => resume(Effect.fail(openError(state, error)))
    )
    // On interruption, wait until the attempt has settled, and close a session that made it.
    return Effect.promise(() => opening.then((session) => session.close(), () => undefined))
  })
  // The session is handed out once its tools are pinned, including a refresh that a
  // tools/list_changed sent right after initialize started (so calls do not see a stale list).
  const settled = (session: Session) => session.refreshing === 0 ? Effect.void : Deferred.await(session.refreshed)
  // A 2026-07-28 server's list changes come on a listen stream, opened beside the first requests, never before them.
  const listen = (session: Session) =>
    session.modern
      ? void state.hub.fork(
        listenForChanges(session.client, config.requestTimeoutMs).pipe(
          Effect.annotateLogs({ "interlock.server": config.id })
        )
      )
      : undefined
  return Effect.flatMap(
    Effect.tap(open, (session) => Effect.sync(() => listen(session))),
    (session) =>
      fetchTools(state, session).pipe(
        Effect.andThen(Effect.suspend(() => settled(session))),
        Effect.andThen(restore(state, session)),
        Effect.as(session),
        Effect.onError(() => Effect.promise(() => session.close()))
      )
  )
}

/** The live session, connecting (once, shared, retried on the server's backoff) when there is none. */
export const acquire = (state: SlotState, events: SessionEvents): Effect.Effect<Session, TransportFailure> => {
  const live = state.session
  if (live?.alive) return Effect.succeed(live)
  return Effect.suspend(() => {
    if (state.hub.isClosed()) return Effect.fail(hubClosed(state.config.id))
    // A per-principal server never opens a session of no one's: only its principals' child slots connect.
    if (state.config.sessions === "per-principal" && state.principal === undefined) {
      return Effect.fail(noPrincipal(state.config.id))
    }
    let pending = state.pending
    if (pending === undefined) {
      const deferred = Deferred.makeUnsafe<Session, TransportFailure>()
      state.pending = pending = deferred
      const attempt = connectOnce(state, events).pipe(
        Effect.retry({ schedule: state.config.reconnect, while: isRetryable })
      )
      const started = state.hub.fork(
        attempt.pipe(
          Effect.onExit((exit) =>
            Effect.sync(() => {
              state.pending = undefined
              if (Exit.isSuccess(exit)) {
                state.session = exit.value
                state.lastEra = exit.value.era
                Deferred.doneUnsafe(deferred, exit)
              } else if (Cause.hasInterruptsOnly(exit.cause)) {
                Deferred.doneUnsafe(deferred, Exit.fail(hubClosed(state.config.id)))
              } else {
                Deferred.doneUnsafe(deferred, exit)
              }
            })
          )
        )
      )
      if (!started) {
        state.pending = undefined
        return Effect.fail(hubClosed(state.config.id))
      }
    }
    return Deferred.await(pending)
  })
}

/** Closes every session the slot opened, and waits for the closes under way. */
export const closeSessions = (state: SlotState): Promise<void> => {
  state.session = undefined
  const all = [...state.sessions]
  state.sessions.clear()
  return Promise.all([...all.map((session) => session.close()), ...state.closing]).then(() => undefined)
}
