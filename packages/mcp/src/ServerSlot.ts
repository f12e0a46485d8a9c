/**
 * One server's connection lifetime: connects lazily (or eagerly), shares one connection attempt
 * among concurrent callers, retries a failed attempt on the server's backoff Schedule, and forgets
 * a session that ended so that the next call reconnects. A crash fails every in-flight request at
 * once (the SDK rejects them when the transport closes), each with a TransportError that says how
 * the server ended.
 */
import { ProtocolError, Timeout, type Tool, TransportError, type TransportFailure } from "@interlock/core"
import type { InputRequiredResult, LoggingLevel, Tool as SdkTool } from "@modelcontextprotocol/client"
import { Cause, Deferred, Effect, Exit } from "effect"
import type { Caller, Operation, Resume } from "./Caller.ts"
import { listenForChanges } from "./ChangeListen.ts"
import { toTools } from "./Convert.ts"
import { type Credential, CurrentCredential } from "./Credential.ts"
import { endedAtStart, fromSdk, isRetryable, isTimeout, isUnreachable, spawnFailed } from "./Failures.ts"
import type { CompiledServer } from "./HubConfig.ts"
import type { HubListener } from "./HubNotification.ts"
import { callerCapabilities, PARK_LIFETIME_MS, type ParkedCall, parkedExchange } from "./ParkedCall.ts"
import { roundTrip } from "./RoundTrip.ts"
import {
  type Exchange,
  type HostHandlers,
  OpenFailed,
  openSession,
  registered,
  type Session,
  type SessionEvents
} from "./Session.ts"
import type { ToolChange, ToolPins } from "./ToolPins.ts"
import { currentCaller } from "./TracedCaller.ts"

/** What every slot shares with the hub. */
export interface HubRuntime {
  readonly clientInfo: { readonly name: string; readonly version: string }
  readonly host: HostHandlers
  readonly pins: ToolPins
  /** Runs an Effect in the hub's scope (interrupted when the hub closes); false once the hub is closed. */
  readonly fork: (effect: Effect.Effect<unknown, unknown>) => boolean
  /** Reports tools whose definition changed (telemetry). */
  readonly reportChanges: (changes: ReadonlyArray<ToolChange>) => void
  /** True once the hub's scope is closing. */
  readonly isClosed: () => boolean
  /** Hands a server's notification to the hub's listeners. */
  readonly notify: HubListener
}

const hubClosed = (serverId: string) => new TransportError({ serverId, detail: "the hub is closed" })

const isSpawnError = (error: unknown): boolean => {
  const syscall = (error as { syscall?: unknown } | null)?.syscall
  return typeof syscall === "string" && syscall.startsWith("spawn")
}

/** The cache hints of a 2026-07-28 list result (`ttlMs`, `cacheScope`), unchecked: whoever passes them on checks them. */
export interface ListCacheHint {
  readonly ttlMs?: unknown
  readonly cacheScope?: unknown
}

/** A server's connection state. */
export class ServerSlot {
  readonly config: CompiledServer
  private readonly hub: HubRuntime
  session: Session | undefined
  /** The protocol era of the latest session, kept across reconnects. */
  lastEra: string | undefined
  private pending: Deferred.Deferred<Session, TransportFailure> | undefined
  private readonly sessions = new Set<Session>()
  private readonly closing = new Set<Promise<void>>()
  private readonly events: SessionEvents
  /** Resource URIs the hub's users subscribed to; restored on every new session. */
  readonly subscriptions = new Set<string>()
  /** The logging level asked of this server, if any; restored on every new session. */
  loggingLevel: LoggingLevel | undefined
  /** The cache hints of the latest tools/list of a 2026-07-28 session, as the server sent them (none from a 2025 one). */
  toolsCacheHint: ListCacheHint | undefined
  /** The requests parked on this slot's 2025 sessions for their callers' answers, by park id. */
  private readonly parks = new Map<string, ParkedCall<unknown>>()
  /** How many sessions are open for one parked request each (onOwnSession). */
  private ownCount = 0
  /** The per-host slots of a `sessions: "per-host"` server, by caller key. */
  private readonly perHost = new Map<object, ServerSlot>()
  /** The per-principal slots of a `sessions: "per-principal"` server, by principal. */
  private readonly perPrincipal = new Map<string, ServerSlot>()
  /** The principal whose sessions this slot opens (a per-principal server's own slot); undefined: shared. */
  readonly principal: string | undefined

  constructor(config: CompiledServer, hub: HubRuntime, principal?: string) {
    this.config = config
    this.hub = hub
    this.principal = principal
    this.events = {
      onClose: (session) => {
        if (this.session === session) this.session = undefined
        this.sessions.delete(session)
        // Reap what is left of it (a crashed child's pipes); closeAll waits for this too.
        const closing = session.close().finally(() => this.closing.delete(closing))
        this.closing.add(closing)
      },
      onToolsListChanged: (session) => {
        if (!session.alive) return
        if (session.refreshing++ === 0) session.refreshed = Deferred.makeUnsafe()
        const settle = Effect.sync(() => {
          if (--session.refreshing === 0) Deferred.doneUnsafe(session.refreshed, Exit.void)
          if (session.alive) this.hub.notify({ serverId: this.config.id, method: "notifications/tools/list_changed" })
        })
        if (!this.hub.fork(this.fetchTools(session).pipe(Effect.ignore, Effect.ensuring(settle)))) {
          Effect.runSync(settle)
        }
      },
      onNotification: (_session, notification) => this.hub.notify(notification)
    }
  }

  /** The live session, connecting (once, shared) when there is none. */
  acquire(): Effect.Effect<Session, TransportFailure> {
    const live = this.session
    if (live !== undefined && live.alive) return Effect.succeed(live)
    return Effect.suspend(() => {
      if (this.hub.isClosed()) return Effect.fail(hubClosed(this.config.id))
      // A per-principal server never opens a session of no one's: only its principals' slots connect.
      if (this.config.sessions === "per-principal") return Effect.fail(noPrincipal(this.config.id))
      let pending = this.pending
      if (pending === undefined) {
        const deferred = Deferred.makeUnsafe<Session, TransportFailure>()
        this.pending = pending = deferred
        const started = this.hub.fork(
          this.connectWithRetry().pipe(
            Effect.onExit((exit) =>
              Effect.sync(() => {
                this.pending = undefined
                if (Exit.isSuccess(exit)) {
                  this.session = exit.value
                  this.lastEra = exit.value.era
                  Deferred.doneUnsafe(deferred, exit)
                } else if (Cause.hasInterruptsOnly(exit.cause)) {
                  Deferred.doneUnsafe(deferred, Exit.fail(hubClosed(this.config.id)))
                } else {
                  Deferred.doneUnsafe(deferred, exit)
                }
              })
            )
          )
        )
        if (!started) {
          this.pending = undefined
          return Effect.fail(hubClosed(this.config.id))
        }
      }
      return Deferred.await(pending)
    })
  }

  private connectWithRetry(): Effect.Effect<Session, TransportFailure> {
    return this.connectOnce().pipe(Effect.retry({ schedule: this.config.reconnect, while: isRetryable }))
  }

  /** One attempt: open the session, then list its tools to pin their fingerprints. */
  private connectOnce(): Effect.Effect<Session, TransportFailure> {
    const config = this.config
    const open = Effect.callback<Session, TransportFailure>((resume, signal) => {
      const opening = openSession(config, this.hub.clientInfo, this.hub.host, this.events, signal, this.principal)
      opening.then(
        (session) => {
          this.sessions.add(session)
          resume(Effect.succeed(session))
        },
        (error) => resume(Effect.fail(this.openError(error)))
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
        ? void this.hub.fork(
          listenForChanges(session.client, this.config.requestTimeoutMs).pipe(
            Effect.annotateLogs({ "interlock.server": this.config.id })
          )
        )
        : undefined
    return Effect.flatMap(
      Effect.tap(open, (session) => Effect.sync(() => listen(session))),
      (session) =>
        this.fetchTools(session).pipe(
          Effect.andThen(Effect.suspend(() => settled(session))),
          Effect.andThen(this.restore(session)),
          Effect.as(session),
          Effect.onError(() => Effect.promise(() => session.close()))
        )
    )
  }

  /**
   * Re-applies the subscriptions and logging level of earlier sessions to a new one. A server that
   * refuses them still serves its tools: the refusal is only logged (it names no URI).
   */
  private restore(session: Session): Effect.Effect<void> {
    if (this.subscriptions.size === 0 && this.loggingLevel === undefined) return Effect.void
    const level = this.loggingLevel
    const steps: Array<Effect.Effect<unknown, TransportFailure>> = []
    if (this.subscriptions.size > 0) steps.push(this.applySubscriptions(session, [...this.subscriptions]))
    if (level !== undefined && !session.modern) {
      steps.push(
        this.request(
          session,
          "during logging/setLevel",
          (signal) => session.client.setLoggingLevel(level, { signal, timeout: this.config.requestTimeoutMs })
        )
      )
    }
    return Effect.forEach(
      steps,
      (step) =>
        step.pipe(Effect.catch(() => Effect.logWarning("MCP server refused a restored subscription or logging level"))),
      { discard: true }
    ).pipe(
      Effect.annotateLogs({ "interlock.server": this.config.id })
    )
  }

  /**
   * Subscribes a session to resource updates: `resources/subscribe` per URI on a 2025-era
   * connection, one `subscriptions/listen` stream with every URI on a 2026-07-28 one.
   */
  applySubscriptions(session: Session, uris: ReadonlyArray<string>): Effect.Effect<void, TransportFailure> {
    const timeout = this.config.requestTimeoutMs
    if (!session.modern) {
      return Effect.forEach(
        uris,
        (uri) =>
          this.request(
            session,
            "during resources/subscribe",
            (signal) => session.client.subscribeResource({ uri }, { signal, timeout })
          ),
        { discard: true }
      )
    }
    return this.request(session, "during subscriptions/listen", async (signal) => {
      const previous = session.listen
      session.listen = this.subscriptions.size === 0
        ? undefined
        : await session.client.listen({ resourceSubscriptions: [...this.subscriptions] }, { signal, timeout })
      await previous?.close()
    }).pipe(Effect.asVoid)
  }

  private openError(error: unknown): TransportFailure {
    const id = this.config.id
    const cause = error instanceof OpenFailed ? error.cause : error
    const describe = error instanceof OpenFailed ? error.describeEnd : () => undefined
    const endpoint = this.config.endpoint
    if (endpoint._tag === "stdio" && isSpawnError(cause)) return spawnFailed(id, endpoint.options.command, cause)
    if (error instanceof OpenFailed && error.endedAtStart) return endedAtStart(id, error.describeEnd())
    return fromSdk(id, cause, describe, "during initialize")
  }

  /** Lists the server's tools (all pages), records their fingerprints and reports changed ones. */
  fetchTools(session: Session): Effect.Effect<ReadonlyArray<Tool>, TransportFailure> {
    const id = this.config.id
    // A server without the tools capability is not asked (the SDK would print a debug line to stdout).
    const offered = session.client.getServerCapabilities()?.tools !== undefined
    const listed: Effect.Effect<{ readonly tools: ReadonlyArray<SdkTool> } & ListCacheHint, TransportFailure> = !offered
      ? Effect.succeed({ tools: [] })
      : this.request(
        session,
        "during tools/list",
        (signal) =>
          session.client.listTools(undefined, { signal, timeout: this.config.requestTimeoutMs, cacheMode: "refresh" })
      )
    return listed.pipe(
      Effect.flatMap((listed): Effect.Effect<ReadonlyArray<Tool>, TransportFailure> => {
        const tools = toTools(id, listed.tools)
        if (tools instanceof ProtocolError) return Effect.fail(tools)
        this.toolsCacheHint = session.modern ? { ttlMs: listed.ttlMs, cacheScope: listed.cacheScope } : undefined
        return Effect.map(this.hub.pins.record(id, tools), (changes) => {
          if (changes.length > 0) this.hub.reportChanges(changes)
          return tools
        })
      })
    )
  }

  /**
   * Runs one SDK request on a session, mapping its failure; interruption aborts it on the wire.
   * With `deadlineMs`, the SDK's request timeout is the call's deadline and becomes core's Timeout.
   */
  request<A>(
    session: Session,
    phase: string,
    run: (signal: AbortSignal) => Promise<A>
  ): Effect.Effect<A, TransportFailure>
  request<A, B>(
    session: Session,
    phase: string,
    run: (signal: AbortSignal) => Promise<A>,
    deadlineMs: number,
    map: (a: A) => B
  ): Effect.Effect<B, TransportFailure | Timeout>
  request<A, B>(
    session: Session,
    phase: string,
    run: (signal: AbortSignal) => Promise<A>,
    deadlineMs?: number,
    map?: (a: A) => B
  ): Effect.Effect<A | B, TransportFailure | Timeout> {
    return Effect.callback<A | B, TransportFailure | Timeout>((resume, signal) => {
      run(signal).then(
        (value) => resume(Effect.succeed(map === undefined ? value : map(value))),
        (error) => {
          if (deadlineMs !== undefined && isTimeout(error)) {
            return resume(Effect.fail(new Timeout({ millis: deadlineMs })))
          }
          // An HTTP request that could not be delivered at all: give the session up, so the next call reconnects.
          if (isUnreachable(error)) session.lose(`the server could not be reached ${phase}`)
          resume(Effect.fail(fromSdk(this.config.id, error, () => session.describeEnd(), phase)))
        }
      )
    })
  }

  /**
   * The slot a caller's request goes to. A `per-host` server that speaks a 2025 revision gives each
   * caller key its own slot (its own session), whose server-to-client requests that caller answers;
   * everything else, and every 2026-07-28 server, is served by this shared slot.
   */
  forCaller(caller: Caller | undefined): Effect.Effect<ServerSlot, TransportFailure> {
    const key = caller?.key
    if (this.config.sessions !== "per-host" || caller === undefined || key === undefined) return Effect.succeed(this)
    return Effect.flatMap(this.acquire(), (shared) => {
      if (shared.modern) return Effect.succeed(this)
      const own = this.perHost.get(key)
      if (own !== undefined) return Effect.succeed(own)
      if (this.perHost.size >= this.config.maxSessions) {
        return Effect.fail(sessionsFull(this.config))
      }
      const slot = new ServerSlot(this.config, { ...this.hub, host: callerHandlers(this.hub.host, caller) })
      this.perHost.set(key, slot)
      return Effect.succeed(slot)
    })
  }

  /**
   * The slot of `principal` on a `per-principal` server: its sessions carry that principal's
   * requests and no one else's. A request that names no principal gets none, and is not sent.
   */
  forPrincipal(principal: string | undefined): Effect.Effect<ServerSlot, TransportFailure> {
    if (this.config.sessions !== "per-principal") return Effect.succeed(this)
    if (principal === undefined) return Effect.fail(noPrincipal(this.config.id))
    const own = this.perPrincipal.get(principal)
    if (own !== undefined) return Effect.succeed(own)
    if (this.perPrincipal.size >= this.config.maxSessions) {
      return Effect.fail(sessionsFull(this.config, "per-principal"))
    }
    // The principal's own slot shares its one session among that principal's callers.
    const slot = new ServerSlot({ ...this.config, sessions: "shared" }, this.hub, principal)
    this.perPrincipal.set(principal, slot)
    return Effect.succeed(slot)
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

  /** The protocol era of this slot's latest session, or of a principal's on a per-principal server. */
  get latestEra(): string | undefined {
    const own = this.session?.era ?? this.lastEra
    if (own !== undefined) return own
    for (const slot of this.perPrincipal.values()) if (slot.latestEra !== undefined) return slot.latestEra
    return undefined
  }

  /**
   * Runs `use` on a session opened for it alone, with `host`'s capabilities, and closes it after;
   * it counts against maxSessions with the per-host sessions.
   */
  private onOwnSession<A, E>(
    host: HostHandlers,
    use: (session: Session) => Effect.Effect<A, E>
  ): Effect.Effect<A, E | TransportFailure> {
    return Effect.acquireUseRelease(
      Effect.suspend(() => {
        if (this.perHost.size + this.ownCount >= this.config.maxSessions) {
          return Effect.fail(sessionsFull(this.config))
        }
        this.ownCount++
        return Effect.succeed(new ServerSlot(this.config, { ...this.hub, host }))
      }),
      (own) => Effect.flatMap(own.acquire(), use),
      (own) => Effect.promise(() => own.closeAll().finally(() => this.ownCount--))
    )
  }

  /** Closes the per-host session of a caller key (its host went away). */
  release(key: object): void {
    const slot = this.perHost.get(key)
    if (slot === undefined) return
    this.perHost.delete(key)
    const closing = slot.closeAll().finally(() => this.closing.delete(closing))
    this.closing.add(closing)
  }

  /** How many per-host sessions are open. */
  get perHostCount(): number {
    return this.perHost.size
  }

  /**
   * A request that a 2026-07-28 server may answer `input_required` (tools/call, prompts/get,
   * resources/read): on such a session it is driven as a round trip for the current caller
   * (RoundTrip.ts), each leg under what is left of `deadlineMs` when given; on a 2025 session it is
   * sent once (`resume` is then undefined).
   */
  exchange<A>(
    session: Session,
    op: Operation,
    phase: string,
    run: (
      resume: Resume | undefined,
      signal: AbortSignal,
      timeout: number | undefined,
      on: Session
    ) => Promise<A | InputRequiredResult>,
    deadlineMs?: number
  ): Effect.Effect<A, TransportFailure | Timeout> {
    const until = deadlineMs === undefined ? undefined : Date.now() + deadlineMs
    const left = () => (until === undefined ? undefined : Math.max(1, until - Date.now()))
    const leg = (resume: Resume | undefined) =>
      deadlineMs === undefined
        ? this.request(session, phase, (signal) => run(resume, signal, undefined, session))
        : this.request(session, phase, (signal) => run(resume, signal, left(), session), deadlineMs, (answer) => answer)
    // A 2025 session has no input_required: its answer is the result. A caller without a channel
    // for the server's requests has the request parked, so that they can be relayed to it (ParkedCall.ts).
    if (!session.modern) {
      return Effect.flatMap(currentCaller, (caller) => {
        const relay = caller?.relay
        if (caller === undefined || relay === undefined) {
          return registered(session, {}, leg(undefined) as Effect.Effect<A, TransportFailure | Timeout>)
        }
        const parked = (exchange: Exchange) => (on: Session) =>
          registered(
            on,
            exchange,
            this.request(on, phase, (signal) => run(undefined, signal, PARK_LIFETIME_MS, on)) as Effect.Effect<
              A,
              TransportFailure
            >
          )
        // On a per-host server the request gets a session of its own, declaring its host's capabilities.
        const send = (exchange: Exchange) =>
          this.config.sessions === "per-host"
            ? this.onOwnSession(callerCapabilities(this.hub.host, caller), parked(exchange))
            : parked(exchange)(session)
        return parkedExchange(this.parks, op, caller, relay, send, this.hub.fork, deadlineMs)
      })
    }
    const rounds = roundTrip<A>(op, this.hub.host, leg)
    return deadlineMs === undefined
      ? rounds
      : Effect.timeoutOrElse(rounds, {
        duration: deadlineMs,
        orElse: () => Effect.fail(new Timeout({ millis: deadlineMs }))
      })
  }

  /** Closes every session this slot opened (the hub's finalizer). */
  closeAll(): Promise<void> {
    this.session = undefined
    const all = [...this.sessions]
    const children = [...this.perHost.values(), ...this.perPrincipal.values()]
    this.sessions.clear()
    this.perHost.clear()
    this.perPrincipal.clear()
    return Promise.all([
      ...all.map((session) => session.close()),
      ...children.map((slot) => slot.closeAll()),
      ...this.closing
    ]).then(() => undefined)
  }
}

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

/** The error for a call that would open one session more than the server's maxSessions. */
const sessionsFull = (config: CompiledServer, kind: "per-host" | "per-principal" = "per-host") =>
  new TransportError({
    serverId: config.id,
    detail: `the server already has its ${config.maxSessions} ${kind} sessions open (maxSessions)`
  })

/** The error for a request to a per-principal server that names no principal: it is not sent. */
const noPrincipal = (serverId: string) =>
  new TransportError({
    serverId,
    detail: "no credential: the server's sessions are per principal, and this request names none, so it was not sent"
  })

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
  if (live !== undefined && live.alive) return use(slot, live)
  return Effect.flatMap(slot.acquire(), (session) => use(slot, session))
}
