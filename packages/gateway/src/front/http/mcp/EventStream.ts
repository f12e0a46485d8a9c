/**
 * One open answer of a Streamable HTTP session: a POST's, until its requests are answered, or the
 * session's standalone (GET) stream. Its head goes out as an event stream once something is written
 * before the last response; a lone response goes as plain JSON. An idle stream gets comment lines.
 */
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/server"
import type { ServerResponse } from "node:http"
import { SSE_HEADERS } from "./McpWire.ts"

/** One open answer. */
export interface EventStream {
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

/** A stream numbered `key` on `res`, awaiting the responses to `pending`. */
export const makeStream = (key: number, res: ServerResponse, pending: Iterable<RequestId> = []): EventStream => ({
  key,
  res,
  pending: new Set(pending),
  sse: false,
  keepAlive: undefined
})

/** Sends the event-stream head (Node holds it back until the first write), naming the session when it has an id. */
export const startEvents = (stream: EventStream, sessionId: string | undefined): void => {
  stream.sse = true
  stream.res.writeHead(200, sessionId === undefined ? SSE_HEADERS : { ...SSE_HEADERS, "mcp-session-id": sessionId })
}

/** Writes event-stream text, sending the head first when it has not gone yet. */
export const writeEvents = (stream: EventStream, text: string, sessionId: string | undefined): void => {
  if (!stream.sse) startEvents(stream, sessionId)
  stream.res.write(text)
}

/** Writes a comment line every `ms` while the stream is open (stopped by {@link stopKeepAlive}). */
export const startKeepAlive = (stream: EventStream, ms: number, sessionId: string | undefined): void => {
  stream.keepAlive = setInterval(() => writeEvents(stream, ": keepalive\n\n", sessionId), ms)
  stream.keepAlive.unref()
}

/** Stops a stream's comment lines. */
export const stopKeepAlive = (stream: EventStream): void => {
  if (stream.keepAlive !== undefined) clearInterval(stream.keepAlive)
}

/**
 * Ends an answer: with the last response, as an event (`framed`) or, when nothing went before it,
 * as plain JSON; with none, as an (empty) event stream.
 */
export const endAnswer = (
  stream: EventStream,
  last: JSONRPCMessage | undefined,
  framed: (message: JSONRPCMessage) => string,
  sessionId: string | undefined
): void => {
  const res = stream.res
  if (res.writableEnded) return
  if (last === undefined) {
    if (!stream.sse) startEvents(stream, sessionId)
    return void res.end()
  }
  if (stream.sse) return void res.end(framed(last))
  const body = JSON.stringify(last)
  const headers: Record<string, string | number> = {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body)
  }
  if (sessionId !== undefined) headers["mcp-session-id"] = sessionId
  res.writeHead(200, headers).end(body)
}
