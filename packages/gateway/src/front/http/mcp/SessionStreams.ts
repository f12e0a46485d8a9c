/**
 * The event streams of one Streamable HTTP session: which stream each request is answered on,
 * which are open, the standalone (GET) stream, and in resumable mode the EventLog, the priming
 * event and the replay a GET with Last-Event-ID asks for. A stream the host closes before its
 * answers, with no log to keep them, has its requests cancelled.
 */
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from "@modelcontextprotocol/server"
import type { ServerResponse } from "node:http"
import { EventLog, type EventLogOptions } from "./EventLog.ts"
import {
  endAnswer,
  type EventStream,
  makeStream,
  startEvents,
  startKeepAlive,
  stopKeepAlive,
  writeEvents
} from "./EventStream.ts"
import { event, RESUME_RETRY_MS, SSE_KEEP_ALIVE_MS } from "./McpWire.ts"
import type { Refusal } from "./SessionRequestChecks.ts"

/** The log's stream number of the session's standalone (GET) stream; POST streams count from 1. */
const STANDALONE = 0

/** What the streams read of their session, and how they tell it of requests the host gave up. */
export interface StreamsSession {
  readonly sessionId: () => string | undefined
  /** The session's protocol version, and those the server speaks: a stream is primed only in one that has priming. */
  readonly version: () => string | undefined
  readonly versions: () => ReadonlyArray<string>
  readonly closed: () => boolean
  /** Hands the server a message of the host's own (a cancellation). */
  readonly receive: (message: JSONRPCMessage) => void
}

/** The timings and caps of a session's streams. */
export interface StreamsOptions {
  readonly keepAliveMs?: number | undefined
  /** Priming events, event ids, an event log and Last-Event-ID resumption. */
  readonly resumable?: boolean | undefined
  readonly retryMs?: number | undefined
  readonly log?: EventLogOptions | undefined
}

/** A session's streams. */
export class SessionStreams {
  private readonly session: StreamsSession
  private readonly options: StreamsOptions
  private readonly byRequest = new Map<RequestId, EventStream>()
  private readonly open = new Set<EventStream>()
  private standalone: EventStream | undefined = undefined
  /** Resumable mode only: the events sent, and the POST streams whose requests still await a response. */
  private readonly log: EventLog | undefined
  private readonly resumable = new Map<number, EventStream>()
  private nextKey = STANDALONE + 1

  constructor(session: StreamsSession, options: StreamsOptions) {
    this.session = session
    this.options = options
    this.log = options.resumable === true ? new EventLog(options.log) : undefined
  }

  /** Whether a connection is open: the standalone stream or a POST still awaiting answers. */
  get busy(): boolean {
    return this.open.size > 0
  }

  /**
   * Opens the answer of a POST whose `requests` await responses; returns what the server's
   * handlers of them get (in resumable mode, how to close the streams early).
   */
  openPost(res: ServerResponse, requests: ReadonlyArray<RequestId>): {
    readonly stream: EventStream
    readonly extra: MessageExtraInfo | undefined
  } {
    const stream = makeStream(this.nextKey++, res, requests)
    if (requests.length > 1 || this.log !== undefined) startEvents(stream, this.session.sessionId())
    for (const id of stream.pending) this.byRequest.set(id, stream)
    this.attach(stream, res)
    if (this.log === undefined) return { stream, extra: undefined }
    this.resumable.set(stream.key, stream)
    // As the SDK's transport: a primed stream may be closed mid-call; the host then resumes it.
    if (!this.prime(stream)) return { stream, extra: undefined }
    return {
      stream,
      extra: { closeSSEStream: () => this.cut(stream), closeStandaloneSSEStream: () => this.cut(this.standalone) }
    }
  }

  /** Keeps a POST's answer alive while its requests await responses. */
  holdPost(stream: EventStream): void {
    if (stream.pending.size > 0 && !stream.res.writableEnded) this.keepAlive(stream)
  }

  /** A GET: with Last-Event-ID (resumable mode), replays what followed that event; else opens the standalone stream. */
  openGet(res: ServerResponse, lastEventId: unknown): Refusal | undefined {
    if (this.log !== undefined && typeof lastEventId === "string" && lastEventId !== "") {
      return this.resume(res, this.log, lastEventId)
    }
    if (this.standalone !== undefined) {
      return { status: 409, code: -32000, message: "Conflict: Only one SSE stream is allowed per session" }
    }
    const stream = makeStream(STANDALONE, res)
    startEvents(stream, this.session.sessionId())
    res.flushHeaders()
    this.standalone = stream
    this.attach(stream, res)
    this.prime(stream)
    this.keepAlive(stream)
    return undefined
  }

  /** A GET with Last-Event-ID: replays what followed that event on its stream, then carries the stream on. */
  private resume(res: ServerResponse, log: EventLog, lastEventId: string): Refusal | undefined {
    const found = log.after(lastEventId)
    if (found === undefined) return { status: 400, code: -32000, message: "Invalid event ID format" }
    const current = found.stream === STANDALONE ? this.standalone : this.resumable.get(found.stream)
    if (current !== undefined && this.open.has(current)) {
      return { status: 409, code: -32000, message: "Conflict: Stream already has an active connection" }
    }
    const stream = current ?? makeStream(found.stream, res)
    stream.sse = false
    stream.res = res
    startEvents(stream, this.session.sessionId())
    res.flushHeaders()
    for (const event of found.events) res.write(`event: message\nid: ${event.id}\ndata: ${event.data}\n\n`)
    // A call stream whose requests were all answered ends with the replay; the others stay open.
    if (found.stream !== STANDALONE && current === undefined) return void res.end()
    if (found.stream === STANDALONE) this.standalone = stream
    this.attach(stream, res)
    this.keepAlive(stream)
    return undefined
  }

  /**
   * A request the host cancelled gets no answer: it stops holding its stream, which ends once nothing else awaits one.
   */
  settleCancelled(requestId: RequestId | undefined): void {
    const stream = requestId === undefined ? undefined : this.byRequest.get(requestId)
    if (stream === undefined || requestId === undefined) return
    this.byRequest.delete(requestId)
    stream.pending.delete(requestId)
    if (stream.pending.size > 0) return
    this.resumable.delete(stream.key)
    if (this.open.has(stream)) this.end(stream)
  }

  /** A message of the server's own, on the standalone stream (logged in resumable mode, even with no stream open). */
  sendStandalone(message: JSONRPCMessage): void {
    const standalone = this.standalone
    this.pass(STANDALONE, standalone !== undefined && !standalone.res.writableEnded ? standalone : undefined, message)
  }

  /** The stream the request `requestId` is answered on, if it still awaits its response. */
  streamOf(requestId: RequestId): EventStream | undefined {
    return this.byRequest.get(requestId)
  }

  /**
   * A message related to a request on `stream`: a notification or request passes; its response ends
   * the request's wait. Returns the error to report when the response cannot be delivered.
   */
  sendOn(stream: EventStream, requestId: RequestId, message: JSONRPCMessage, response: boolean): Error | undefined {
    const live = this.open.has(stream) && !stream.res.writableEnded
    if (!response) return void this.pass(stream.key, live ? stream : undefined, message)
    this.byRequest.delete(requestId)
    stream.pending.delete(requestId)
    if (stream.pending.size === 0) this.resumable.delete(stream.key)
    if (!live) {
      // Resumable: logged for the host to fetch with Last-Event-ID.
      if (this.log !== undefined) return void this.frame(stream.key, message)
      return new Error(
        `Response for request ID ${
          String(requestId)
        } is undeliverable: per-request stream is disconnected and no eventStore is configured`
      )
    }
    if (stream.pending.size === 0) this.end(stream, message)
    else writeEvents(stream, this.frame(stream.key, message), this.session.sessionId())
    return undefined
  }

  /** Ends every open stream and forgets them all (the session closed). */
  closeAll(): void {
    for (const stream of [...this.open]) this.end(stream)
    this.byRequest.clear()
    this.resumable.clear()
  }

  /** Makes `res` the stream's open connection, until it closes. */
  private attach(stream: EventStream, res: ServerResponse): void {
    this.open.add(stream)
    res.once("close", () => {
      if (stream.res !== res) return
      this.drop(stream)
      // The host went away before the answers; without an event log nothing can deliver them any more.
      if (this.log === undefined && !this.session.closed() && stream.pending.size > 0) this.abandon(stream)
    })
  }

  /** Tells the server that the requests of a stream the host closed are cancelled. */
  private abandon(stream: EventStream): void {
    const ids = [...stream.pending]
    stream.pending.clear()
    for (const id of ids) this.byRequest.delete(id)
    for (const requestId of ids) {
      this.session.receive({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId, reason: "the host closed the request's connection" }
      })
    }
  }

  /**
   * Resumable mode: the priming event (an id and no data) with the retry field, when the session's version has them.
   */
  private prime(stream: EventStream): boolean {
    const version = this.session.version()
    if (
      this.log === undefined || version === undefined || version < "2025-11-25" ||
      !this.session.versions().includes(version)
    ) {
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

  private keepAlive(stream: EventStream): void {
    startKeepAlive(stream, this.options.keepAliveMs ?? SSE_KEEP_ALIVE_MS, this.session.sessionId())
  }

  /** Forgets a stream whose response ended or whose host went away. */
  private drop(stream: EventStream): void {
    stopKeepAlive(stream)
    this.open.delete(stream)
    if (this.standalone === stream) this.standalone = undefined
  }

  /** Ends an answer: with the last response, as an event or (when nothing went before it) as plain JSON. */
  private end(stream: EventStream, last?: JSONRPCMessage): void {
    this.drop(stream)
    endAnswer(stream, last, (message) => this.frame(stream.key, message), this.session.sessionId())
  }

  /**
   * A message that does not end its stream: logged in resumable mode, and written to `live`, the stream's open
   * connection if it has one.
   */
  private pass(key: number, live: EventStream | undefined, message: JSONRPCMessage): void {
    if (live === undefined && this.log === undefined) return
    const text = this.frame(key, message)
    if (live !== undefined) writeEvents(live, text, this.session.sessionId())
  }
}
