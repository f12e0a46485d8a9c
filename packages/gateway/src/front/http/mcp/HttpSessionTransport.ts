/**
 * The server side of one Streamable HTTP session, on Node's request and response (no web streams): POST carries
 * messages, GET opens the standalone stream, DELETE ends the session. Requests are checked first
 * (SessionRequestChecks.ts); answers go on the session's streams (SessionStreams.ts, EventStream.ts). Statuses and
 * messages are the SDK transport's; specified by test/conformance.test.ts and test/http-session-transport.test.ts.
 */
import {
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
  type TransportSendOptions
} from "@modelcontextprotocol/server"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { EventLogOptions } from "./EventLog.ts"
import { cancelledId, isInitialize, isRequest, isResponse, rpcError } from "./McpWire.ts"
import {
  getHeadersRefusal,
  initializeRefusal,
  isRefusal,
  postHeadersRefusal,
  postMessages,
  type Refusal,
  sessionRefusal
} from "./SessionRequestChecks.ts"
import { SessionStreams } from "./SessionStreams.ts"

export { RESUME_RETRY_MS, rpcError, SSE_KEEP_ALIVE_MS } from "./McpWire.ts"

/** Options of an {@link HttpSessionTransport}. */
export interface HttpSessionTransportOptions {
  /** Called with the new session's id once its initialize request is accepted. */
  readonly onsessioninitialized?: (sessionId: string) => void
  /** Called when the host ends the session with DELETE. */
  readonly onsessionclosed?: (sessionId: string) => void
  /** How often an open answer or stream with nothing to send gets a comment line (ms); default SSE_KEEP_ALIVE_MS. */
  readonly keepAliveMs?: number
  /**
   * Priming events, event ids, an event log and Last-Event-ID resumption; every answer to a request is then an event
   * stream.
   */
  readonly resumable?: boolean
  /** The `retry:` a resumable stream's priming event carries (ms); default RESUME_RETRY_MS. */
  readonly retryMs?: number
  /** The caps of a resumable session's event log. */
  readonly log?: EventLogOptions
}

/** One host session over Streamable HTTP, on node:http. */
export class HttpSessionTransport implements Transport {
  // The SDK's Transport: the session's id, and the callbacks the SDK's Server sets when it connects.
  sessionId: string | undefined = undefined
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: ((message: JSONRPCMessage, extra?: MessageExtraInfo) => void) | undefined
  private readonly options: HttpSessionTransportOptions
  private versions: ReadonlyArray<string> = SUPPORTED_PROTOCOL_VERSIONS
  private started = false
  private initialized = false
  private closed = false
  /** The protocol version of the session: the initialize request's, then the one the server answered with. */
  private version: string | undefined = undefined
  private initializeId: RequestId | undefined = undefined
  private readonly streams: SessionStreams

  constructor(options: HttpSessionTransportOptions = {}) {
    this.options = options
    this.streams = new SessionStreams({
      sessionId: () => this.sessionId,
      version: () => this.version,
      versions: () => this.versions,
      closed: () => this.closed,
      receive: (message) => this.onmessage?.(message)
    }, options)
  }

  /** Whether a connection of the session is open: its standalone stream or a POST still awaiting answers. */
  get busy(): boolean {
    return this.streams.busy
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
    if (this.closed) rpcError(res, 404, -32001, "Session not found")
    else if (req.method === "POST") this.post(req, res, body)
    else if (req.method === "GET") this.get(req, res)
    else if (req.method === "DELETE") this.delete(req, res)
    else {
      this.onerror?.(new Error("Method not allowed."))
      rpcError(res, 405, -32000, "Method not allowed.", { allow: "GET, POST, DELETE" })
    }
  }

  /** Answers a refused request (and reports it); true when there was a refusal. */
  private refused(res: ServerResponse, refusal: Refusal | undefined): refusal is Refusal {
    if (refusal === undefined) return false
    this.onerror?.(new Error(refusal.message))
    rpcError(res, refusal.status, refusal.code, refusal.message)
    return true
  }

  /** The session and protocol-version checks every request after initialize passes; false when it answered. */
  private admit(req: IncomingMessage, res: ServerResponse): boolean {
    const facts = { initialized: this.initialized, sessionId: this.sessionId, versions: this.versions }
    return !this.refused(res, sessionRefusal(req, facts))
  }

  /** Starts the session on its initialize request. */
  private initialize(initialize: JSONRPCMessage): void {
    this.sessionId = crypto.randomUUID()
    this.initialized = true
    if (isRequest(initialize)) {
      this.initializeId = initialize.id
      const version = initialize.params?.protocolVersion
      if (typeof version === "string") this.version = version
    }
    this.options.onsessioninitialized?.(this.sessionId)
  }

  private post(req: IncomingMessage, res: ServerResponse, body: unknown): void {
    if (this.refused(res, postHeadersRefusal(req))) return
    const messages = postMessages(body)
    if (isRefusal(messages)) {
      this.refused(res, messages)
      return
    }
    const initializing = messages.some(isInitialize)
    if (this.refused(res, initializeRefusal(messages, this.initialized))) return
    if (initializing) this.initialize(messages[0])
    else if (!this.admit(req, res)) return
    const requests = messages.filter(isRequest)
    if (requests.length === 0) {
      res.writeHead(202).end()
      for (const message of messages) this.onmessage?.(message)
      for (const message of messages) this.streams.settleCancelled(cancelledId(message))
      return
    }
    const { stream, extra } = this.streams.openPost(res, requests.map((request) => request.id))
    for (const message of messages) this.onmessage?.(message, isRequest(message) ? extra : undefined)
    for (const message of messages) this.streams.settleCancelled(cancelledId(message))
    this.streams.holdPost(stream)
  }

  private get(req: IncomingMessage, res: ServerResponse): void {
    if (this.refused(res, getHeadersRefusal(req))) return
    if (!this.admit(req, res)) return
    this.refused(res, this.streams.openGet(res, req.headers["last-event-id"]))
  }

  private delete(req: IncomingMessage, res: ServerResponse): void {
    if (!this.admit(req, res)) return
    if (this.sessionId !== undefined) this.options.onsessionclosed?.(this.sessionId)
    res.writeHead(200).end()
    void this.close()
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const response = isResponse(message)
    const requestId = response ? message.id : options?.relatedRequestId
    if (requestId === undefined) {
      if (response) {
        throw new Error("Cannot send a response on a standalone SSE stream unless resuming a previous client request")
      }
      return this.streams.sendStandalone(message)
    }
    const stream = this.streams.streamOf(requestId)
    if (stream === undefined) throw new Error(`No connection established for request ID: ${String(requestId)}`)
    if (response && requestId === this.initializeId) this.negotiated(message)
    const undeliverable = this.streams.sendOn(stream, requestId, message, response)
    if (undeliverable !== undefined) this.onerror?.(undeliverable)
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
    this.streams.closeAll()
    this.onclose?.()
  }
}
