/**
 * The server side of one Streamable HTTP session, written straight onto Node's request and response
 * (no web streams). A lone response goes as plain JSON unless something comes first, then the answer
 * becomes an event stream; GET opens the standalone stream, DELETE ends the session; a POST the host
 * closes early cancels its requests. With `resumable`, answers are event streams with ids kept in an
 * EventLog, and a GET with Last-Event-ID replays them. Statuses and messages are the SDK transport's;
 * the specification is test/conformance.test.ts with test/http-session-transport.test.ts.
 */
import {
  isJsonContentType,
  type JSONRPCMessage,
  type MessageExtraInfo,
  parseJSONRPCMessage,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
  type TransportSendOptions
} from "@modelcontextprotocol/server"
import type { IncomingMessage, ServerResponse } from "node:http"
import { BATCH_TOO_LARGE, EMPTY_BATCH, MAX_BATCH } from "../DoorLimits.ts"
import { EventLog, type EventLogOptions } from "./EventLog.ts"
import {
  cancelledId,
  event,
  isInitialize,
  isRequest,
  isResponse,
  RESUME_RETRY_MS,
  rpcError,
  SSE_HEADERS,
  SSE_KEEP_ALIVE_MS
} from "./McpWire.ts"

export { RESUME_RETRY_MS, rpcError, SSE_KEEP_ALIVE_MS } from "./McpWire.ts"

/** The log's stream number of the session's standalone (GET) stream; POST streams count from 1. */
const STANDALONE = 0

/** Options of an {@link HttpSessionTransport}. */
export interface HttpSessionTransportOptions {
  /** Called with the new session's id once its initialize request is accepted. */
  readonly onsessioninitialized?: (sessionId: string) => void
  /** Called when the host ends the session with DELETE. */
  readonly onsessionclosed?: (sessionId: string) => void
  /** How often an open answer or stream with nothing to send gets a comment line (ms); default SSE_KEEP_ALIVE_MS. */
  readonly keepAliveMs?: number
  /** Priming events, event ids, an event log and Last-Event-ID resumption; every answer to a request is then an event stream. */
  readonly resumable?: boolean
  /** The `retry:` a resumable stream's priming event carries (ms); default RESUME_RETRY_MS. */
  readonly retryMs?: number
  /** The caps of a resumable session's event log. */
  readonly log?: EventLogOptions
}

/** One open answer: a POST's (until its requests are answered) or the session's standalone event stream. */
interface EventStream {
  /** The stream's number in the event log. */
  readonly key: number
  /** The connection it is written to; a resumed stream moves to the GET that resumed it. */
  res: ServerResponse
  /** The requests of this POST that still await a response. */
  readonly pending: Set<RequestId>
  /** Whether the head went out as an event stream; until then a lone response may go as plain JSON. */
  sse: boolean
  keepAlive: ReturnType<typeof setInterval> | undefined
}

/** One host session over Streamable HTTP, on node:http. */
export class HttpSessionTransport implements Transport {
  sessionId: string | undefined = undefined
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: ((message: JSONRPCMessage, extra?: MessageExtraInfo) => void) | undefined
  private readonly options: HttpSessionTransportOptions
  private versions: ReadonlyArray<string> = SUPPORTED_PROTOCOL_VERSIONS
  private started = false
  private initialized = false
  private closed = false
  private readonly streams = new Map<RequestId, EventStream>()
  private readonly open = new Set<EventStream>()
  private standalone: EventStream | undefined = undefined
  /** Resumable mode only: the events sent, and the POST streams whose requests still await a response. */
  private readonly log: EventLog | undefined
  private readonly resumable = new Map<number, EventStream>()
  private nextKey = STANDALONE + 1
  /** The protocol version of the session: the initialize request's, then the one the server answered with. */
  private version: string | undefined = undefined
  private initializeId: RequestId | undefined = undefined

  constructor(options: HttpSessionTransportOptions = {}) {
    this.options = options
    this.log = options.resumable === true ? new EventLog(options.log) : undefined
  }

  /** Whether a connection of the session is open: its standalone stream or a POST still awaiting answers. */
  get busy(): boolean {
    return this.open.size > 0
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("Transport already started")
    this.started = true
  }

  /** The protocol versions the server speaks (the SDK's Server sets them when it connects). */
  setSupportedProtocolVersions(versions: Array<string>): void {
    this.versions = versions
  }

  /** Serves one HTTP request of this session; `body` is the POST body, already parsed as JSON. */
  handleRequest(req: IncomingMessage, res: ServerResponse, body?: unknown): void {
    if (this.closed) return rpcError(res, 404, -32001, "Session not found")
    if (req.method === "POST") return this.post(req, res, body)
    if (req.method === "GET") return this.get(req, res)
    if (req.method === "DELETE") return this.delete(req, res)
    this.onerror?.(new Error("Method not allowed."))
    rpcError(res, 405, -32000, "Method not allowed.", { allow: "GET, POST, DELETE" })
  }

  private reject(res: ServerResponse, status: number, code: number, message: string): void {
    this.onerror?.(new Error(message))
    rpcError(res, status, code, message)
  }

  /** The session and protocol-version checks every request after initialize passes; false when it answered. */
  private admit(req: IncomingMessage, res: ServerResponse): boolean {
    if (!this.initialized) return (this.reject(res, 400, -32000, "Bad Request: Server not initialized"), false)
    const id = req.headers["mcp-session-id"]
    if (id === undefined) {
      return (this.reject(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required"), false)
    }
    if (id !== this.sessionId) return (this.reject(res, 404, -32001, "Session not found"), false)
    const version = req.headers["mcp-protocol-version"]
    if (typeof version === "string" && !this.versions.includes(version)) {
      this.reject(
        res,
        400,
        -32000,
        `Bad Request: Unsupported protocol version: ${version} (supported versions: ${this.versions.join(", ")})`
      )
      return false
    }
    return true
  }

  private post(req: IncomingMessage, res: ServerResponse, body: unknown): void {
    const accept = req.headers.accept
    if (accept === undefined || !accept.includes("application/json") || !accept.includes("text/event-stream")) {
      return this.reject(
        res,
        406,
        -32000,
        "Not Acceptable: Client must accept both application/json and text/event-stream"
      )
    }
    if (!isJsonContentType(req.headers["content-type"] ?? null)) {
      return this.reject(res, 415, -32000, "Unsupported Media Type: Content-Type must be application/json")
    }
    if (Array.isArray(body) && body.length === 0) {
      return this.reject(res, 400, -32600, EMPTY_BATCH)
    }
    if (Array.isArray(body) && body.length > MAX_BATCH) {
      return this.reject(res, 400, -32600, BATCH_TOO_LARGE)
    }
    let messages: Array<JSONRPCMessage>
    try {
      messages = Array.isArray(body) ? body.map(parseJSONRPCMessage) : [parseJSONRPCMessage(body)]
    } catch {
      return this.reject(res, 400, -32700, "Parse error: Invalid JSON-RPC message")
    }
    if (messages.some(isInitialize)) {
      if (this.initialized) return this.reject(res, 400, -32600, "Invalid Request: Server already initialized")
      if (messages.length > 1) {
        return this.reject(res, 400, -32600, "Invalid Request: Only one initialization request is allowed")
      }
      this.sessionId = crypto.randomUUID()
      this.initialized = true
      const initialize = messages[0]
      if (isRequest(initialize)) {
        this.initializeId = initialize.id
        const version = initialize.params?.protocolVersion
        if (typeof version === "string") this.version = version
      }
      this.options.onsessioninitialized?.(this.sessionId)
    } else if (!this.admit(req, res)) {
      return
    }
    const requests = messages.filter(isRequest)
    if (requests.length === 0) {
      res.writeHead(202).end()
      for (const message of messages) this.onmessage?.(message)
      for (const message of messages) this.settleCancelled(cancelledId(message))
      return
    }
    const stream: EventStream = {
      key: this.nextKey++,
      res,
      pending: new Set(requests.map((request) => request.id)),
      sse: false,
      keepAlive: undefined
    }
    if (requests.length > 1 || this.log !== undefined) this.startEvents(stream)
    for (const id of stream.pending) this.streams.set(id, stream)
    this.attach(stream, res)
    let extra: MessageExtraInfo | undefined = undefined
    if (this.log !== undefined) {
      this.resumable.set(stream.key, stream)
      // As the SDK's transport: a primed stream may be closed mid-call; the host then resumes it.
      if (this.prime(stream)) {
        extra = {
          closeSSEStream: () => this.cut(stream),
          closeStandaloneSSEStream: () => this.cut(this.standalone)
        }
      }
    }
    for (const message of messages) this.onmessage?.(message, isRequest(message) ? extra : undefined)
    for (const message of messages) this.settleCancelled(cancelledId(message))
    if (stream.pending.size > 0 && !res.writableEnded) this.keepAlive(stream)
  }

  private get(req: IncomingMessage, res: ServerResponse): void {
    if (!req.headers.accept?.includes("text/event-stream")) {
      return this.reject(res, 406, -32000, "Not Acceptable: Client must accept text/event-stream")
    }
    if (!this.admit(req, res)) return
    const lastEventId = req.headers["last-event-id"]
    if (this.log !== undefined && typeof lastEventId === "string" && lastEventId !== "") {
      return this.resume(res, this.log, lastEventId)
    }
    if (this.standalone !== undefined) {
      return this.reject(res, 409, -32000, "Conflict: Only one SSE stream is allowed per session")
    }
    const stream: EventStream = { key: STANDALONE, res, pending: new Set(), sse: false, keepAlive: undefined }
    this.startEvents(stream)
    res.flushHeaders()
    this.standalone = stream
    this.attach(stream, res)
    this.prime(stream)
    this.keepAlive(stream)
  }

  /** A GET with Last-Event-ID: replays what followed that event on its stream, then carries the stream on. */
  private resume(res: ServerResponse, log: EventLog, lastEventId: string): void {
    const found = log.after(lastEventId)
    if (found === undefined) return this.reject(res, 400, -32000, "Invalid event ID format")
    const current = found.stream === STANDALONE ? this.standalone : this.resumable.get(found.stream)
    if (current !== undefined && this.open.has(current)) {
      return this.reject(res, 409, -32000, "Conflict: Stream already has an active connection")
    }
    const stream: EventStream = current ??
      { key: found.stream, res, pending: new Set(), sse: false, keepAlive: undefined }
    stream.sse = false
    stream.res = res
    this.startEvents(stream)
    res.flushHeaders()
    for (const event of found.events) res.write(`event: message\nid: ${event.id}\ndata: ${event.data}\n\n`)
    // A call stream whose requests were all answered ends with the replay; the others stay open.
    if (found.stream !== STANDALONE && current === undefined) return void res.end()
    if (found.stream === STANDALONE) this.standalone = stream
    this.attach(stream, res)
    this.keepAlive(stream)
  }

  private delete(req: IncomingMessage, res: ServerResponse): void {
    if (!this.admit(req, res)) return
    if (this.sessionId !== undefined) this.options.onsessionclosed?.(this.sessionId)
    res.writeHead(200).end()
    void this.close()
  }

  /** Makes `res` the stream's open connection, until it closes. */
  private attach(stream: EventStream, res: ServerResponse): void {
    this.open.add(stream)
    res.once("close", () => {
      if (stream.res !== res) return
      this.drop(stream)
      // The host went away before the answers; without an event log nothing can deliver them any more.
      if (this.log === undefined && !this.closed && stream.pending.size > 0) this.abandon(stream)
    })
  }

  /** Tells the server that the requests of a stream the host closed are cancelled. */
  private abandon(stream: EventStream): void {
    const ids = [...stream.pending]
    stream.pending.clear()
    for (const id of ids) this.streams.delete(id)
    for (const requestId of ids) {
      this.onmessage?.({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId, reason: "the host closed the request's connection" }
      })
    }
  }

  /** A request the host cancelled gets no answer: it stops holding its stream, which ends once nothing else awaits one. */
  private settleCancelled(requestId: RequestId | undefined): void {
    const stream = requestId === undefined ? undefined : this.streams.get(requestId)
    if (stream === undefined || requestId === undefined) return
    this.streams.delete(requestId)
    stream.pending.delete(requestId)
    if (stream.pending.size > 0) return
    this.resumable.delete(stream.key)
    if (this.open.has(stream)) this.end(stream)
  }

  /** Resumable mode: the priming event (an id and no data) with the retry field, when the session's version has them. */
  private prime(stream: EventStream): boolean {
    const version = this.version
    if (this.log === undefined || version === undefined || version < "2025-11-25" || !this.versions.includes(version)) {
      return false
    }
    stream.res.write(
      `id: ${this.log.append(stream.key)}\nretry: ${this.options.retryMs ?? RESUME_RETRY_MS}\ndata: \n\n`
    )
    return true
  }

  /** Ends a stream's connection early (the host reconnects after the retry and resumes it). */
  private cut(stream: EventStream | undefined): void {
    if (stream === undefined || !this.open.has(stream)) return
    this.drop(stream)
    stream.res.end()
  }

  /** A message as an event; in resumable mode logged, with its id. */
  private frame(key: number, message: JSONRPCMessage): string {
    if (this.log === undefined) return event(message)
    const data = JSON.stringify(message)
    return `event: message\nid: ${this.log.append(key, data)}\ndata: ${data}\n\n`
  }

  /** Sends the event-stream head (Node holds it back until the first write). */
  private startEvents(stream: EventStream): void {
    stream.sse = true
    stream.res.writeHead(
      200,
      this.sessionId === undefined ? SSE_HEADERS : { ...SSE_HEADERS, "mcp-session-id": this.sessionId }
    )
  }

  private write(stream: EventStream, text: string): void {
    if (!stream.sse) this.startEvents(stream)
    stream.res.write(text)
  }

  private keepAlive(stream: EventStream): void {
    stream.keepAlive = setInterval(
      () => this.write(stream, ": keepalive\n\n"),
      this.options.keepAliveMs ?? SSE_KEEP_ALIVE_MS
    )
    stream.keepAlive.unref()
  }

  /** Forgets a stream whose response ended or whose host went away. */
  private drop(stream: EventStream): void {
    if (stream.keepAlive !== undefined) clearInterval(stream.keepAlive)
    this.open.delete(stream)
    if (this.standalone === stream) this.standalone = undefined
  }

  /** Ends an answer: with the last response, as an event or (when nothing went before it) as plain JSON. */
  private end(stream: EventStream, last?: JSONRPCMessage): void {
    this.drop(stream)
    const res = stream.res
    if (res.writableEnded) return
    if (last === undefined) {
      if (!stream.sse) this.startEvents(stream)
      return void res.end()
    }
    if (stream.sse) return void res.end(this.frame(stream.key, last))
    const body = JSON.stringify(last)
    const headers: Record<string, string | number> = {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body)
    }
    if (this.sessionId !== undefined) headers["mcp-session-id"] = this.sessionId
    res.writeHead(200, headers).end(body)
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const response = isResponse(message)
    const requestId = isResponse(message) ? message.id : options?.relatedRequestId
    if (requestId === undefined) {
      if (response) {
        throw new Error("Cannot send a response on a standalone SSE stream unless resuming a previous client request")
      }
      const standalone = this.standalone
      return this.pass(
        STANDALONE,
        standalone !== undefined && !standalone.res.writableEnded ? standalone : undefined,
        message
      )
    }
    const stream = this.streams.get(requestId)
    if (stream === undefined) throw new Error(`No connection established for request ID: ${String(requestId)}`)
    const live = this.open.has(stream) && !stream.res.writableEnded
    if (!response) return this.pass(stream.key, live ? stream : undefined, message)
    if (requestId === this.initializeId) this.negotiated(message)
    this.streams.delete(requestId)
    stream.pending.delete(requestId)
    if (stream.pending.size === 0) this.resumable.delete(stream.key)
    if (!live) {
      // Resumable: logged for the host to fetch with Last-Event-ID.
      if (this.log !== undefined) return void this.frame(stream.key, message)
      this.onerror?.(
        new Error(
          `Response for request ID ${
            String(requestId)
          } is undeliverable: per-request stream is disconnected and no eventStore is configured`
        )
      )
      return
    }
    if (stream.pending.size === 0) this.end(stream, message)
    else this.write(stream, this.frame(stream.key, message))
  }

  /** A message that does not end its stream: logged in resumable mode, and written to `live`, the stream's open connection if it has one. */
  private pass(key: number, live: EventStream | undefined, message: JSONRPCMessage): void {
    if (live === undefined && this.log === undefined) return
    const text = this.frame(key, message)
    if (live !== undefined) this.write(live, text)
  }

  /** Takes the protocol version from the answer to initialize. */
  private negotiated(message: JSONRPCMessage): void {
    this.initializeId = undefined
    const version = "result" in message ? message.result.protocolVersion : undefined
    if (typeof version === "string") this.version = version
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    for (const stream of [...this.open]) this.end(stream)
    this.streams.clear()
    this.resumable.clear()
    this.onclose?.()
  }
}
