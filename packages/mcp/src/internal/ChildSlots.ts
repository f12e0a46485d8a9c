/**
 * The child slots of a `sessions: "per-host"` server that speaks a 2025 revision: one per caller key
 * (its own session, whose server-to-client requests that caller answers), and one-off slots for a
 * parked request that needs a session of its own; and the per-principal slots of a `sessions: "per-principal"`
 * server. Each kind counts against `maxSessions`.
 */
import { TransportError, type TransportFailure } from "@interlock/core"
import { Effect } from "effect"
import type { Caller } from "../Caller.ts"
import type { CompiledServer } from "../HubConfig.ts"
import type { HostHandlers, Session } from "../Session.ts"
import { type HubRuntime, type SlotState, trackClosing } from "./SlotState.ts"

/** What a child slot must offer: its session, and closing all it opened. */
export interface ChildSlot {
  readonly acquire: () => Effect.Effect<Session, TransportFailure>
  readonly closeAll: () => Promise<void>
}

/** A slot's children, and how to make one over a hub runtime of its own. */
export interface ChildSlots<S extends ChildSlot> {
  readonly make: (hub: HubRuntime) => S
  /** Makes a principal's own slot, which shares its one session among that principal's callers. */
  readonly makeForPrincipal: (principal: string) => S
  /** The per-host slots, by caller key. */
  readonly perHost: Map<object, S>
  /** The per-principal slots, by principal. */
  readonly perPrincipal: Map<string, S>
  /** How many sessions are open for one parked request each (onOwnSession). */
  readonly own: { count: number }
}

/** No children yet; `make` builds one. */
export const makeChildSlots = <S extends ChildSlot>(
  make: (hub: HubRuntime) => S,
  makeForPrincipal: (principal: string) => S
): ChildSlots<S> => ({
  make,
  makeForPrincipal,
  perHost: new Map(),
  perPrincipal: new Map(),
  own: { count: 0 }
})

/** The error for a call that would open one session more than the server's maxSessions. */
const sessionsFull = (config: CompiledServer, kind: "per-host" | "per-principal" = "per-host") =>
  new TransportError({
    serverId: config.id,
    detail: `the server already has its ${config.maxSessions} ${kind} sessions open (maxSessions)`
  })

/**
 * The host handlers of a per-host session: the hub's capabilities, each answered by the one caller.
 * The caller's answer is typed as the SDK result it stands for: the SDK checks a handler's answer
 * against the protocol's schema before it goes to the server.
 */
const callerHandlers = (host: HostHandlers, caller: Caller): HostHandlers => {
  const ask = <A>(serverId: string, method: string, params: object | undefined) =>
    caller.ask(serverId, { method, params: params as Readonly<Record<string, unknown>> | undefined }) as Effect.Effect<
      A,
      unknown
    >
  const rootsOf = (answer: { readonly roots?: unknown }) => (Array.isArray(answer.roots) ? answer.roots : [])
  return {
    sampling: host.sampling === undefined
      ? undefined
      : { createMessage: (serverId, params) => ask(serverId, "sampling/createMessage", params) },
    elicitation: host.elicitation === undefined
      ? undefined
      : {
        elicit: (serverId, params) => ask(serverId, "elicitation/create", params),
        applyDefaults: host.elicitation.applyDefaults
      },
    roots: host.roots === undefined
      ? undefined
      : {
        list: (serverId) => Effect.map(ask<{ readonly roots?: unknown }>(serverId, "roots/list", undefined), rootsOf)
      },
    run: host.run
  }
}

/**
 * The child for a caller with a key, made on its first request (`shared`, the slot's own session,
 * told the server's era): undefined when the shared slot serves it (a 2026-07-28 session).
 */
export const childFor = <S extends ChildSlot>(
  state: SlotState,
  children: ChildSlots<S>,
  shared: Session,
  caller: Caller,
  key: object
): Effect.Effect<S | undefined, TransportFailure> => {
  if (shared.modern) return Effect.succeed(undefined)
  const own = children.perHost.get(key)
  if (own !== undefined) return Effect.succeed(own)
  if (children.perHost.size >= state.config.maxSessions) return Effect.fail(sessionsFull(state.config))
  const slot = children.make({ ...state.hub, host: callerHandlers(state.hub.host, caller) })
  children.perHost.set(key, slot)
  return Effect.succeed(slot)
}

/** The slot of `principal` on a per-principal server, made on its first request, within maxSessions. */
export const childForPrincipal = <S extends ChildSlot>(
  state: SlotState,
  children: ChildSlots<S>,
  principal: string
): Effect.Effect<S, TransportFailure> => {
  const own = children.perPrincipal.get(principal)
  if (own !== undefined) return Effect.succeed(own)
  if (children.perPrincipal.size >= state.config.maxSessions) {
    return Effect.fail(sessionsFull(state.config, "per-principal"))
  }
  const slot = children.makeForPrincipal(principal)
  children.perPrincipal.set(principal, slot)
  return Effect.succeed(slot)
}

/**
 * Runs `use` on a session opened for it alone, with `host`'s capabilities, and closes it after;
 * it counts against maxSessions with the per-host sessions.
 */
export const onOwnSession = <S extends ChildSlot, A, E>(
  state: SlotState,
  children: ChildSlots<S>,
  host: HostHandlers,
  use: (session: Session) => Effect.Effect<A, E>
): Effect.Effect<A, E | TransportFailure> =>
  Effect.acquireUseRelease(
    Effect.suspend(() => {
      if (children.perHost.size + children.own.count >= state.config.maxSessions) {
        return Effect.fail(sessionsFull(state.config))
      }
      children.own.count++
      return Effect.succeed(children.make({ ...state.hub, host }))
    }),
    (own) => Effect.flatMap(own.acquire(), use),
    (own) => Effect.promise(() => own.closeAll().finally(() => children.own.count--))
  )

/** Closes the per-host session of a caller key (its host went away). */
export const releaseChild = <S extends ChildSlot>(state: SlotState, children: ChildSlots<S>, key: object): void => {
  const slot = children.perHost.get(key)
  if (slot === undefined) return
  children.perHost.delete(key)
  trackClosing(state, slot.closeAll())
}

/** Closes every per-host and per-principal child. */
export const closeChildren = <S extends ChildSlot>(children: ChildSlots<S>): Promise<void> => {
  const all = [...children.perHost.values(), ...children.perPrincipal.values()]
  children.perHost.clear()
  children.perPrincipal.clear()
  return Promise.all(all.map((slot) => slot.closeAll())).then(() => undefined)
}
