/**
 * One live connection to one server: an SDK Client over a fresh transport, connected and
 * negotiated. It knows its protocol era, notices its own end, and answers server-initiated
 * requests through the host's services. Opening is a Promise (the SDK's world); the hub wraps it.
 */
import {
  Client,
  InMemoryTransport,
  type McpSubscription,
  StreamableHTTPClientTransport,
  type Transport
} from "@modelcontextprotocol/client"
import type { McpServer } from "@modelcontextprotocol/server"
import { Deferred, type Effect, Redacted } from "effect"
import type { HostRequest } from "./Caller.ts"
import { withAuthHeaders } from "./Credential.ts"
import type { ElicitationShape, RootsShape, SamplingShape } from "./HostRequests.ts"
import type { CompiledServer } from "./HubConfig.ts"
import type { HubNotification } from "./HubNotification.ts"
import { defaultResultType } from "./ResultTypeDefault.ts"
import { StdioTransport } from "./StdioTransport.ts"

/** The host's answers to server-initiated requests, and a way to run them. */
export interface HostHandlers {
  readonly sampling: SamplingShape | undefined
  readonly elicitation: ElicitationShape | undefined
  readonly roots: RootsShape | undefined
  /** Runs a handler's Effect in the hub's scope. */
  readonly run: <A>(serverId: string, run: () => Effect.Effect<A, unknown>) => Promise<A>
}

/**
 * A request in flight on a session, which a server's own request may belong to; a parked one holds them for its host
 * (ParkedCall.ts).
 */
export interface Exchange {
  readonly hold?: ((request: HostRequest, signal: AbortSignal) => Promise<unknown>) | undefined
}

/**
 * Where a server's own request on a 2025 session goes: to the parked request that is the only one
 * in flight, refused while a parked one is among several (it might be any of theirs), else to the
 * host's services (undefined).
 */
const heldBy = (
  exchanges: ReadonlySet<Exchange>,
  request: HostRequest,
  signal: AbortSignal
): Promise<unknown> | undefined => {
  if (exchanges.size === 1) {
    const [only] = exchanges
    return only.hold?.(request, signal)
  }
  for (const exchange of exchanges) {
    if (exchange.hold !== undefined) {
      return Promise.reject(
        new Error("several requests are in flight on this session; the server's request cannot be attributed to one")
      )
    }
  }
  return undefined
}

/** Callbacks from a live session to the hub. */
export interface SessionEvents {
  readonly onToolsListChanged: (session: Session) => void
  readonly onClose: (session: Session) => void
  /** A prompts or resources list change, a resource update or a log message (tools go through onToolsListChanged). */
  readonly onNotification: (session: Session, notification: HubNotification) => void
}

/** What the SDK reports when a Streamable HTTP stream cannot be re-established. */
const CONNECTION_LOST = /Maximum reconnection attempts .*exceeded/

/** A long SDK timeout: deadlines belong to the caller (core's callTimeout), not to the SDK. */
export const NO_SDK_TIMEOUT = 2_147_483_647

const makeTransport = async (
  server: CompiledServer,
  principal: string | undefined,
  host: HostHandlers
): Promise<{ transport: Transport; memoryServer?: McpServer }> => {
  const endpoint = server.endpoint
  const auth = server.auth
  switch (endpoint._tag) {
    case "stdio": {
      const own = auth?.env === undefined || principal === undefined ? undefined : auth.env(principal)
      const options = own === undefined
        ? endpoint.options
        : { ...endpoint.options, env: { ...endpoint.options.env, ...own } }
      return { transport: new StdioTransport(options, endpoint.stderrBytes) }
    }
    case "http": {
      const { headers, bearer, authProvider, fetch } = endpoint.options
      const provider = bearer === undefined ? authProvider : { token: async () => Redacted.value(bearer) }
      const sessionHeaders = auth?.headers
      const authed = sessionHeaders === undefined
        ? fetch
        : withAuthHeaders(
          fetch ?? globalThis.fetch,
          endpoint.url.origin,
          () => host.run(server.id, () => sessionHeaders(principal))
        )
      return {
        transport: new StreamableHTTPClientTransport(endpoint.url, {
          ...(headers === undefined ? {} : { requestInit: { headers: { ...headers } } }),
          ...(provider === undefined ? {} : { authProvider: provider }),
          ...(authed === undefined ? {} : { fetch: authed })
        })
      }
    }
    case "memory": {
      const option = endpoint.options.server
      const memoryServer = typeof option === "function" ? option() : option
      if (memoryServer.isConnected()) await memoryServer.close()
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      await memoryServer.connect(serverSide)
      return { transport: clientSide, memoryServer }
    }
  }
}

/** A connected session. */
export class Session {
  readonly serverId: string
  readonly client: Client
  readonly transport: Transport
  /** `<era>/<version>`, for example `legacy/2025-11-25` or `modern/2026-07-28`. */
  era: string | undefined
  alive = true
  /** Tool-list refreshes in flight after tools/list_changed; while any is, tool fingerprints are unknown. */
  refreshing = 0
  /** Completed when the last refresh in flight has finished. */
  refreshed: Deferred.Deferred<void> = Deferred.makeUnsafe()
  /** The subscriptions/listen stream carrying resource updates on a 2026-07-28 connection. */
  listen: McpSubscription | undefined
  /** The requests in flight that a server's own request may belong to (tools/call, prompts/get, resources/read). */
  readonly exchanges = new Set<Exchange>()

  /** Whether the connection negotiated the 2026-07-28 (modern) protocol era. */
  get modern(): boolean {
    return this.era?.startsWith("modern/") === true
  }

  /** Whether the tool list is being refreshed (fingerprints unknown). */
  get toolsStale(): boolean {
    return this.refreshing > 0
  }
  private readonly memoryServer: McpServer | undefined

  constructor(serverId: string, client: Client, transport: Transport, memoryServer: McpServer | undefined) {
    this.serverId = serverId
    this.client = client
    this.transport = transport
    this.memoryServer = memoryServer
  }

  private lost: string | undefined

  /** How the connection ended, when known (exit code and stderr of a child process, or why it was dropped). */
  describeEnd(): string | undefined {
    return this.transport instanceof StdioTransport ? this.transport.describeExit() : this.lost
  }

  /** Gives the session up (the server is unreachable): in-flight requests fail, the next call reconnects. */
  lose(reason: string): void {
    if (this.lost !== undefined) return
    this.lost = reason
    void this.client.close().catch(() => undefined)
  }

  /** Closes the connection (and ends a child process). Never rejects. */
  async close(): Promise<void> {
    this.alive = false
    try {
      await this.client.close()
    } catch {
      // closing is best effort; the transport is closed below
    }
    try {
      await this.transport.close()
    } catch {
      // already closed
    }
    if (this.memoryServer !== undefined && typeof (this.memoryServer as unknown) === "object") {
      await this.memoryServer.close().catch(() => undefined)
    }
  }
}

const capabilities = (host: HostHandlers) => ({
  ...(host.sampling === undefined ? {} : { sampling: {} }),
  ...(host.elicitation === undefined
    ? {}
    : {
      elicitation: { form: host.elicitation.applyDefaults ? { applyDefaults: true } : {}, url: {} } as Record<
        string,
        Record<string, boolean>
      >
    }),
  ...(host.roots === undefined ? {} : { roots: {} })
})

const answerHostRequests = (
  client: Client,
  serverId: string,
  host: HostHandlers,
  exchanges: () => ReadonlySet<Exchange>
): void => {
  const { sampling, elicitation, roots } = host
  // The SDK checks what a held request is answered against the protocol's schema before the server gets it.
  const held = (method: string, params: object | undefined, signal: AbortSignal) =>
    heldBy(exchanges(), { method, params: params as Readonly<Record<string, unknown>> | undefined }, signal) as
      | Promise<never>
      | undefined
  if (sampling !== undefined) {
    client.setRequestHandler(
      "sampling/createMessage",
      (request, extra) =>
        held(request.method, request.params, extra.mcpReq.signal) ??
          host.run(serverId, () => sampling.createMessage(serverId, request.params))
    )
  }
  if (elicitation !== undefined) {
    client.setRequestHandler(
      "elicitation/create",
      (request, extra) =>
        held(request.method, request.params, extra.mcpReq.signal) ??
          host.run(serverId, () => elicitation.elicit(serverId, request.params))
    )
  }
  if (roots !== undefined) {
    client.setRequestHandler(
      "roots/list",
      (request, extra) =>
        held(request.method, request.params, extra.mcpReq.signal) ??
          host.run(serverId, () => roots.list(serverId)).then((list) => ({ roots: [...list] }))
    )
  }
}

/** Errors thrown while opening, with the session (if one was built) so the caller can describe its end. */
export class OpenFailed extends Error {
  override readonly cause: unknown
  readonly describeEnd: () => string | undefined
  /** Whether a server process ended on its own before the handshake was done (another attempt would end alike). */
  readonly endedAtStart: boolean
  constructor(cause: unknown, describeEnd: () => string | undefined, endedAtStart = false) {
    super("open failed")
    this.cause = cause
    this.describeEnd = describeEnd
    this.endedAtStart = endedAtStart
  }
}

/**
 * Spawns or dials the server, runs the handshake and returns the live session. Cleans up on
 * failure. A session of `principal` gets that principal's auth headers or environment (Credential.ts).
 */
export const openSession = async (
  server: CompiledServer,
  clientInfo: { readonly name: string; readonly version: string },
  host: HostHandlers,
  events: SessionEvents,
  signal: AbortSignal,
  principal: string | undefined = undefined
): Promise<Session> => {
  const negotiation = server.negotiation
  const client = new Client(clientInfo, {
    capabilities: capabilities(host),
    ...(negotiation === "legacy"
      ? {}
      : { versionNegotiation: { mode: negotiation === "auto" ? "auto" : negotiation } }),
    // The hub drives input_required rounds itself, for the request's caller (RoundTrip.ts).
    inputRequired: { autoFulfill: false }
    // No `listChanged`: on a 2026-07-28 connection the SDK would hold connect until the server
    // acknowledged its listen stream; the slot opens that stream in the background (ChangeListen.ts).
  })
  client.setNotificationHandler(
    "notifications/tools/list_changed",
    () => void (session.alive && events.onToolsListChanged(session))
  )
  client.setNotificationHandler(
    "notifications/prompts/list_changed",
    () => notify({ serverId: server.id, method: "notifications/prompts/list_changed" })
  )
  client.setNotificationHandler(
    "notifications/resources/list_changed",
    () => notify({ serverId: server.id, method: "notifications/resources/list_changed" })
  )
  const notify = (notification: HubNotification) => {
    if (session.alive) events.onNotification(session, notification)
  }
  client.setNotificationHandler(
    "notifications/resources/updated",
    (notification) =>
      notify({ serverId: server.id, method: "notifications/resources/updated", params: notification.params })
  )
  client.setNotificationHandler(
    "notifications/message",
    (notification) => notify({ serverId: server.id, method: "notifications/message", params: notification.params })
  )
  answerHostRequests(client, server.id, host, () => session.exchanges)
  let made: { transport: Transport; memoryServer?: McpServer }
  try {
    made = await makeTransport(server, principal, host)
  } catch (error) {
    throw new OpenFailed(error, () => undefined)
  }
  defaultResultType(made.transport, () => client.getProtocolEra() === "modern")
  const session: Session = new Session(server.id, client, made.transport, made.memoryServer)
  // An abandoned attempt (the hub closing) ends the transport at once: a probe or handshake that
  // does not watch the signal would otherwise keep a child process alive until its timeout.
  const abandon = () => void session.close()
  if (signal.aborted) abandon()
  else signal.addEventListener("abort", abandon, { once: true })
  // Malformed frames and stray errors never end a session. An HTTP server that stays unreachable
  // after the SDK's own stream reconnection attempts does: closing the session fails every
  // in-flight request at once instead of leaving it to its deadline.
  client.onerror = (error) => {
    if (session.alive && CONNECTION_LOST.test(error.message)) {
      session.lose("the server stopped answering (its event stream could not be re-established)")
    }
  }
  client.onclose = () => {
    if (!session.alive) return
    session.alive = false
    events.onClose(session)
  }
  try {
    await client.connect(made.transport, { signal, timeout: server.connectTimeoutMs })
  } catch (error) {
    const endedAtStart = made.transport instanceof StdioTransport && made.transport.endedAlone && !signal.aborted
    await session.close()
    throw new OpenFailed(error, () => session.describeEnd(), endedAtStart)
  } finally {
    signal.removeEventListener("abort", abandon)
  }
  const era = client.getProtocolEra()
  const version = client.getNegotiatedProtocolVersion()
  session.era = era === undefined ? version : `${era}/${version ?? "unknown"}`
  return session
}
