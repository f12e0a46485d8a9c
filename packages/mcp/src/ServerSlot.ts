/**
 * One server's slot in the hub: its connection (internal/SlotConnect.ts: lazy or eager, one shared
 * attempt, retried on the server's backoff), what a new session is restored with (SlotRestore), the
 * requests sent on it (SlotRequests, SlotExchange) and a per-host or per-principal server's child slots (ChildSlots).
 * A crash fails every in-flight request at once, each with a TransportError that says how it ended.
 */
import { type Timeout, type Tool, TransportError, type TransportFailure } from "@interlock/core"
import type { LoggingLevel } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import type { Caller, Operation } from "./Caller.ts"
import { type Credential, CurrentCredential } from "./Credential.ts"
import type { CompiledServer } from "./HubConfig.ts"
import {
  childFor,
  childForPrincipal,
  type ChildSlots,
  closeChildren,
  makeChildSlots,
  releaseChild
} from "./internal/ChildSlots.ts"
import { acquire, closeSessions, noPrincipal, sessionEvents } from "./internal/SlotConnect.ts"
import { exchange, type ExchangeRun } from "./internal/SlotExchange.ts"
import { deadlineRequest, fetchTools, request } from "./internal/SlotRequests.ts"
import { applySubscriptions } from "./internal/SlotRestore.ts"
import { type HubRuntime, type ListCacheHint, makeSlotState, type SlotState } from "./internal/SlotState.ts"
import type { Session, SessionEvents } from "./Session.ts"

/** What every slot shares with the hub, and a 2026-07-28 list's cache hints (internal/SlotState.ts). */
export type { HubRuntime, ListCacheHint } from "./internal/SlotState.ts"

/** A server's connection state; what it holds is read-only from outside. */
export class ServerSlot {
  readonly config: CompiledServer
  private readonly state: SlotState
  private readonly events: SessionEvents
  private readonly children: ChildSlots<ServerSlot>

  constructor(config: CompiledServer, hub: HubRuntime, principal?: string) {
    this.config = config
    this.state = makeSlotState(config, hub, principal)
    this.events = sessionEvents(this.state)
    this.children = makeChildSlots(
      (own) => new ServerSlot(config, own),
      (owner) => new ServerSlot({ ...config, sessions: "shared" }, hub, owner)
    )
  }

  /** The principal whose sessions this slot opens (a per-principal server's child); undefined: shared. */
  get principal(): string | undefined {
    return this.state.principal
  }

  /** The latest session, while it is the slot's (it may have died since). */
  get session(): Session | undefined {
    return this.state.session
  }

  /** The protocol era of the latest session, kept across reconnects. */
  get lastEra(): string | undefined {
    return this.state.lastEra
  }

  /** The protocol era of this slot's latest session, or of a principal's on a per-principal server. */
  get latestEra(): string | undefined {
    const own = this.state.session?.era ?? this.state.lastEra
    if (own !== undefined) return own
    for (const slot of this.children.perPrincipal.values()) if (slot.latestEra !== undefined) return slot.latestEra
    return undefined
  }

  /** Resource URIs the hub's users subscribed to; restored on every new session. */
  get subscriptions(): ReadonlySet<string> {
    return this.state.subscriptions
  }

  /** The logging level asked of this server, if any; restored on every new session. */
  get loggingLevel(): LoggingLevel | undefined {
    return this.state.loggingLevel
  }

  /**
   * The cache hints of the latest tools/list of a 2026-07-28 session, as the server sent them (none from a 2025 one).
   */
  get toolsCacheHint(): ListCacheHint | undefined {
    return this.state.toolsCacheHint
  }

  /** How many per-host sessions are open. */
  get perHostCount(): number {
    return this.children.perHost.size
  }

  /** Records that `uri` is (`on`) or is no longer subscribed, for the sessions to come. */
  markSubscribed(uri: string, on: boolean): void {
    if (on) this.state.subscriptions.add(uri)
    else this.state.subscriptions.delete(uri)
  }

  /** Records the logging level asked of this server, for the sessions to come. */
  rememberLoggingLevel(level: LoggingLevel): void {
    this.state.loggingLevel = level
  }

  /** The live session, connecting (once, shared) when there is none. */
  acquire(): Effect.Effect<Session, TransportFailure> {
    return acquire(this.state, this.events)
  }

  /**
   * Subscribes a session to resource updates: `resources/subscribe` per URI on a 2025-era
   * connection, one `subscriptions/listen` stream with every subscribed URI on a 2026-07-28 one.
   */
  applySubscriptions(session: Session, uris: ReadonlyArray<string>): Effect.Effect<void, TransportFailure> {
    return applySubscriptions(this.state, session, uris)
  }

  /** Lists the server's tools (all pages), records their fingerprints and reports changed ones. */
  fetchTools(session: Session): Effect.Effect<ReadonlyArray<Tool>, TransportFailure> {
    return fetchTools(this.state, session)
  }

  /** Runs one SDK request on a session, mapping its failure; interruption aborts it on the wire. */
  request<A>(
    session: Session,
    phase: string,
    run: (signal: AbortSignal) => Promise<A>
  ): Effect.Effect<A, TransportFailure> {
    return request(this.state, session, phase, run)
  }

  /** {@link request} under a deadline: the SDK's request timeout is `deadlineMs`, and becomes core's Timeout. */
  deadlineRequest<A>(
    session: Session,
    phase: string,
    run: (signal: AbortSignal) => Promise<A>,
    deadlineMs: number
  ): Effect.Effect<A, TransportFailure | Timeout> {
    return deadlineRequest(this.state, session, phase, run, deadlineMs)
  }

  /**
   * The slot a caller's request goes to. A `per-host` server that speaks a 2025 revision gives each
   * caller key its own slot (its own session), whose server-to-client requests that caller answers;
   * everything else, and every 2026-07-28 server, is served by this shared slot.
   */
  forCaller(caller: Caller | undefined): Effect.Effect<ServerSlot, TransportFailure> {
    const key = caller?.key
    if (this.config.sessions !== "per-host" || caller === undefined || key === undefined) return Effect.succeed(this)
    return Effect.flatMap(
      this.acquire(),
      (shared) => Effect.map(childFor(this.state, this.children, shared, caller, key), (child) => child ?? this)
    )
  }

  /**
   * The slot of `principal` on a `per-principal` server: its sessions carry that principal's
   * requests and no one else's. A request that names no principal gets none, and is not sent.
   */
  forPrincipal(principal: string | undefined): Effect.Effect<ServerSlot, TransportFailure> {
    if (this.config.sessions !== "per-principal") return Effect.succeed(this)
    if (principal === undefined) return Effect.fail(noPrincipal(this.config.id))
    return childForPrincipal(this.state, this.children, principal)
  }

  /** The slot a request of `caller` with `credential` goes to, as the server's sessions are shared. */
  route(caller: Caller | undefined, credential: Credential | undefined): Effect.Effect<ServerSlot, TransportFailure> {
    switch (this.config.sessions) {
      case "shared":
        return Effect.succeed(this)
      case "per-host":
        return this.forCaller(caller)
      case "per-principal":
        return this.forPrincipal(credential?.principal)
    }
  }

  /** Closes the per-host session of a caller key (its host went away). */
  release(key: object): void {
    releaseChild(this.state, this.children, key)
  }

  /**
   * A request that a 2026-07-28 server may answer `input_required` (tools/call, prompts/get,
   * resources/read), driven as a round trip for the current caller, each leg under what is left of
   * `deadlineMs` when given; on a 2025 session it is sent once (`resume` is then undefined), or
   * parked for a `caller` that relays.
   */
  exchange<A>(
    session: Session,
    op: Operation,
    caller: Caller | undefined,
    phase: string,
    run: ExchangeRun<A>,
    deadlineMs?: number
  ): Effect.Effect<A, TransportFailure | Timeout> {
    return exchange(this.state, this.children, session, op, caller, phase, run, deadlineMs)
  }

  /** Closes every session this slot and its children opened (the hub's finalizer). */
  closeAll(): Promise<void> {
    return Promise.all([closeSessions(this.state), closeChildren(this.children)]).then(() => undefined)
  }
}

/** The error for a server id the hub does not have. */
export const noSuchServer = (serverId: string) => new TransportError({ serverId, detail: "no such server in the hub" })

/** Runs `use` on a server's live session, connecting it first when there is none. */
export const withSession = <A, E>(
  slots: ReadonlyMap<string, ServerSlot>,
  serverId: string,
  use: (slot: ServerSlot, session: Session) => Effect.Effect<A, E>
): Effect.Effect<A, E | TransportFailure> => {
  const slot = slots.get(serverId)
  if (slot === undefined) return Effect.fail(noSuchServer(serverId))
  // A per-principal server's request goes on its credential's principal's own session.
  if (slot.config.sessions === "per-principal") {
    return Effect.flatMap(
      Effect.flatMap(Effect.service(CurrentCredential), (credential) => slot.forPrincipal(credential?.principal)),
      (own) => Effect.flatMap(own.acquire(), (session) => use(own, session))
    )
  }
  const live = slot.session
  if (live?.alive) return use(slot, live)
  return Effect.flatMap(slot.acquire(), (session) => use(slot, session))
}
