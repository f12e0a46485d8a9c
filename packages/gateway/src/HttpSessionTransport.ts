/**
 * The server side of one Streamable HTTP session, written straight onto Node's request and
 * response. A POST of notifications or responses gets 202. A POST carrying one request is
 * answered with plain JSON when its response is the first thing to send; as soon as anything
 * comes first (progress, a log message, a request of the server's own, a keep-alive tick) the
 * answer becomes a server-sent-event stream that carries those and then the response. GET opens
 * the session's standalone event stream; DELETE ends the session. Statuses and error messages
 * are the SDK's Streamable HTTP server transport's (without event store); unlike it, no request
 * or response is converted to web streams, which cost more than the rest of the HTTP hop.
 */
import {
  isJsonContentType,
  type JSONRPCMessage,
  parseJSONRPCMessage,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
  type TransportSendOptions
} from "@modelcontextprotocol/server"
import type { IncomingMessage, ServerResponse } from "node:http"

/** How often an idle event stream gets a comment line, so that nothing between drops it (ms). */
export const SSE_KEEP_ALIVE_MS = 15_000

/** The most messages one POST may carry. */
export const MAX_BATCH = 100

/** Options of an {@link HttpSessionTransport}. */
export interface HttpSessionTransportOptions {
  /** Called with the new session's id once its initialize request is accepted. */
  readonly onsessioninitialized?: (sessionId: string) => void
  /** Called when the host ends the session with DELETE. */
  readonly onsessionclosed?: (sessionId: string) => void
  /** How often an open answer or stream with nothing to send gets a comment line (ms); default SSE_KEEP_ALIVE_MS. */
  readonly keepAliveMs?: number
}

/** One open answer: a POST's (until its requests are answered) or the session's standalone event stream. */
interface EventStream {
  readonly res: ServerResponse
  /** The requests of this POST that still await a response. */
  readonly pending: Set<RequestId>
  /** Whether the head went out as an event stream; until then a lone response may go as plain JSON. */
  sse: boolean
  keepAlive: ReturnType<typeof setInterval> | undefined
}

const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no"
}

const isRequest = (message: JSONRPCMessage): boolean => "method" in message && "id" in message
const isResponse = (message: JSONRPCMessage): boolean => !("method" in message) && ("result" in message || "error" in message)
const isInitialize = (message: JSONRPCMessage): boolean => isRequest(message) && (message as { method: string }).method === "initialize"
const event = (message: JSONRPCMessage): string => `event: message\ndata: ${JSON.stringify(message)}\n\n`

const reply = (res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }))
}

/** One host session over Streamable HTTP, on node:http. */
export class HttpSessionTransport implements Transport {
  sessionId: string | undefined = undefined
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: ((message: JSONRPCMessage) => void) | undefined
  private readonly options: HttpSessionTransportOptions
  private versions: ReadonlyArray<string> = SUPPORTED_PROTOCOL_VERSIONS
  private started = false
  private initialized = false
  private closed = false
  private readonly streams = new Map<RequestId, EventStream>()
  private readonly open = new Set<EventStream>()
  private standalone: EventStream | undefined = undefined

  constructor(options: HttpSessionTransportOptions = {}) {
    this.options = options
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
    if (this.closed) return reply(res, 404, -32001, "Session not found")
    if (req.method === "POST") return this.post(req, res, body)
    if (req.method === "GET") return this.get(req, res)
    if (req.method === "DELETE") return this.delete(req, res)
    this.onerror?.(new Error("Method not allowed."))
    reply(res, 405, -32000, "Method not allowed.", { allow: "GET, POST, DELETE" })
  }

  private reject(res: ServerResponse, status: number, code: number, message: string): void {
    this.onerror?.(new Error(message))
    reply(res, status, code, message)
  }

  /** The session and protocol-version checks every request after initialize passes; false when it answered. */
  private admit(req: IncomingMessage, res: ServerResponse): boolean {
    if (!this.initialized) return (this.reject(res, 400, -32000, "Bad Request: Server not initialized"), false)
    const id = req.headers["mcp-session-id"]
    if (id === undefined) return (this.reject(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required"), false)
    if (id !== this.sessionId) return (this.reject(res, 404, -32001, "Session not found"), false)
    const version = req.headers["mcp-protocol-version"]
    if (typeof version === "string" && !this.versions.includes(version)) {
      this.reject(res, 400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${this.versions.join(", ")})`)
      return false
    }
    return true
  }

  private post(req: IncomingMessage, res: ServerResponse, body: unknown): void {
    const accept = req.headers.accept
    if (accept === undefined || !accept.includes("application/json") || !accept.includes("text/event-stream")) {
      return this.reject(res, 406, -32000, "Not Acceptable: Client must accept both application/json and text/event-stream")
    }
    if (!isJsonContentType(req.headers["content-type"] ?? null)) {
      return this.reject(res, 415, -32000, "Unsupported Media Type: Content-Type must be application/json")
    }
    if (Array.isArray(body) && body.length > MAX_BATCH) {
      return this.reject(res, 400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`)
    }
    let messages: Array<JSONRPCMessage>
    try {
      messages = Array.isArray(body) ? body.map(parseJSONRPCMessage) : [parseJSONRPCMessage(body)]
    } catch {
      return this.reject(res, 400, -32700, "Parse error: Invalid JSON-RPC message")
    }
    if (messages.some(isInitialize)) {
      if (this.initialized) return this.reject(res, 400, -32600, "Invalid Request: Server already initialized")
      if (messages.length > 1) return this.reject(res, 400, -32600, "Invalid Request: Only one initialization request is allowed")
      this.sessionId = crypto.randomUUID()
      this.initialized = true
      this.options.onsessioninitialized?.(this.sessionId)
    } else if (!this.admit(req, res)) {
      return
    }
    const requests = messages.filter(isRequest) as Array<{ readonly id: RequestId }>
    if (requests.length === 0) {
      res.writeHead(202).end()
      for (const message of messages) this.onmessage?.(message)
      return
    }
    const stream: EventStream = { res, pending: new Set(requests.map((request) => request.id)), sse: false, keepAlive: undefined }
    if (requests.length > 1) this.startEvents(stream)
    for (const id of stream.pending) this.streams.set(id, stream)
    this.open.add(stream)
    res.once("close", () => this.drop(stream))
    for (const message of messages) this.onmessage?.(message)
    if (stream.pending.size > 0 && !res.writableEnded) this.keepAlive(stream)
  }

  private get(req: IncomingMessage, res: ServerResponse): void {
    if (!req.headers.accept?.includes("text/event-stream")) {
      return this.reject(res, 406, -32000, "Not Acceptable: Client must accept text/event-stream")
    }
    if (!this.admit(req, res)) return
    if (this.standalone !== undefined) return this.reject(res, 409, -32000, "Conflict: Only one SSE stream is allowed per session")
    const stream: EventStream = { res, pending: new Set(), sse: false, keepAlive: undefined }
    this.startEvents(stream)
    res.flushHeaders()
    this.standalone = stream
    this.open.add(stream)
    res.once("close", () => this.drop(stream))
    this.keepAlive(stream)
  }

  private delete(req: IncomingMessage, res: ServerResponse): void {
    if (!this.admit(req, res)) return
    if (this.sessionId !== undefined) this.options.onsessionclosed?.(this.sessionId)
    res.writeHead(200).end()
    void this.close()
  }

  /** Sends the event-stream head (Node holds it back until the first write). */
  private startEvents(stream: EventStream): void {
    stream.sse = true
    stream.res.writeHead(200, this.sessionId === undefined ? SSE_HEADERS : { ...SSE_HEADERS, "mcp-session-id": this.sessionId })
  }

  private write(stream: EventStream, text: string): void {
    if (!stream.sse) this.startEvents(stream)
    stream.res.write(text)
  }

  private keepAlive(stream: EventStream): void {
    stream.keepAlive = setInterval(() => this.write(stream, ": keepalive\n\n"), this.options.keepAliveMs ?? SSE_KEEP_ALIVE_MS)
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
    if (stream.sse) return void res.end(event(last))
    const body = JSON.stringify(last)
    const headers: Record<string, string | number> = { "content-type": "application/json", "content-length": Buffer.byteLength(body) }
    if (this.sessionId !== undefined) headers["mcp-session-id"] = this.sessionId
    res.writeHead(200, headers).end(body)
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const response = isResponse(message)
    const requestId = response ? (message as { readonly id: RequestId }).id : options?.relatedRequestId
    if (requestId === undefined) {
      if (response) throw new Error("Cannot send a response on a standalone SSE stream unless resuming a previous client request")
      const standalone = this.standalone
      if (standalone !== undefined && !standalone.res.writableEnded) this.write(standalone, event(message))
      return
    }
    const stream = this.streams.get(requestId)
    if (stream === undefined) throw new Error(`No connection established for request ID: ${String(requestId)}`)
    const live = this.open.has(stream) && !stream.res.writableEnded
    if (!response) {
      if (live) this.write(stream, event(message))
      return
    }
    this.streams.delete(requestId)
    stream.pending.delete(requestId)
    if (!live) {
      this.onerror?.(new Error(`Response for request ID ${String(requestId)} is undeliverable: per-request stream is disconnected and no eventStore is configured`))
      return
    }
    if (stream.pending.size === 0) this.end(stream, message)
    else this.write(stream, event(message))
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    for (const stream of [...this.open]) this.end(stream)
    this.streams.clear()
    this.onclose?.()
  }
}
