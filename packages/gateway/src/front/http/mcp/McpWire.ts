/**
 * The wire pieces of the gateway's Streamable HTTP transport (HttpSessionTransport.ts): its caps
 * and timings, the event-stream head and framing, what kind of JSON-RPC message a message is, and
 * the JSON-RPC error answer every refusal of `/mcp` is.
 */
import type { JSONRPCMessage, JSONRPCRequest, JSONRPCResponse, RequestId } from "@modelcontextprotocol/server"
import type { ServerResponse } from "node:http"

/** How often an idle event stream gets a comment line, so that nothing between drops it (ms). */
export const SSE_KEEP_ALIVE_MS = 15_000

/** How long a host waits before it reconnects to a resumable stream that ended early (ms), sent as `retry:`. */
export const RESUME_RETRY_MS = 1_000

/** The head of an event-stream answer. */
export const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no"
}

/** Whether a message is a request (it has a method and an id). */
export const isRequest = (message: JSONRPCMessage): message is JSONRPCRequest => "method" in message && "id" in message
/** Whether a message is a response (a result or an error, no method). */
export const isResponse = (message: JSONRPCMessage): message is JSONRPCResponse =>
  !("method" in message) && ("result" in message || "error" in message)
/** Whether a message is the initialize request. */
export const isInitialize = (message: JSONRPCMessage): boolean => isRequest(message) && message.method === "initialize"
/** The request a `notifications/cancelled` cancels; undefined for any other message. */
export const cancelledId = (message: JSONRPCMessage): RequestId | undefined => {
  if (!("method" in message) || message.method !== "notifications/cancelled" || "id" in message) return undefined
  const requestId = message.params?.requestId
  return typeof requestId === "string" || typeof requestId === "number" ? requestId : undefined
}
/** A message as one server-sent event. */
export const event = (message: JSONRPCMessage): string => `event: message\ndata: ${JSON.stringify(message)}\n\n`

/** Answers an HTTP request with a JSON-RPC error (id null). */
export const rpcError = (
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {}
): void => {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(
    JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null })
  )
}

/**
 * Refuses one JSON-RPC request with HTTP 400 and an error under its own id (null when it has none a response may echo).
 */
export const rpcRefusal = (
  res: ServerResponse,
  id: unknown,
  error: { readonly code: number; readonly message: string; readonly data?: unknown }
): void => {
  const echoed = typeof id === "string" || typeof id === "number" ? id : null
  res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: echoed, error }))
}
