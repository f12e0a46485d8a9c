/**
 * What an HTTP request of a Streamable HTTP session must carry before its messages reach the server:
 * the Accept and Content-Type a POST needs, a batch within MAX_BATCH of JSON-RPC messages, at most one
 * initialize, and after it the session's id and a supported protocol version. Each refusal carries
 * the SDK transport's own status, JSON-RPC code and message.
 */
import { isJsonContentType, type JSONRPCMessage, parseJSONRPCMessage } from "@modelcontextprotocol/server"
import type { IncomingMessage } from "node:http"
import { BATCH_TOO_LARGE, EMPTY_BATCH, MAX_BATCH } from "../DoorLimits.ts"
import { isInitialize } from "./McpWire.ts"

/** Why a request is refused: the HTTP status, the JSON-RPC error code and the message the host gets. */
export interface Refusal {
  readonly status: number
  readonly code: number
  readonly message: string
}

const refused = (status: number, code: number, message: string): Refusal => ({ status, code, message })

/** What the session checks compare a request with. */
export interface SessionFacts {
  readonly initialized: boolean
  readonly sessionId: string | undefined
  readonly versions: ReadonlyArray<string>
}

/** Why a POST is refused for its headers: it must accept JSON and event streams, and send JSON. */
export const postHeadersRefusal = (req: IncomingMessage): Refusal | undefined => {
  const accept = req.headers.accept
  if (accept === undefined || !accept.includes("application/json") || !accept.includes("text/event-stream")) {
    return refused(406, -32000, "Not Acceptable: Client must accept both application/json and text/event-stream")
  }
  if (!isJsonContentType(req.headers["content-type"] ?? null)) {
    return refused(415, -32000, "Unsupported Media Type: Content-Type must be application/json")
  }
  return undefined
}

/** A POST body's JSON-RPC messages (one, or a batch of 1 to MAX_BATCH), or why it is refused. */
export const postMessages = (body: unknown): ReadonlyArray<JSONRPCMessage> | Refusal => {
  if (Array.isArray(body) && body.length === 0) return refused(400, -32600, EMPTY_BATCH)
  if (Array.isArray(body) && body.length > MAX_BATCH) {
    return refused(400, -32600, BATCH_TOO_LARGE)
  }
  try {
    return Array.isArray(body) ? body.map(parseJSONRPCMessage) : [parseJSONRPCMessage(body)]
  } catch {
    return refused(400, -32700, "Parse error: Invalid JSON-RPC message")
  }
}

/** Why messages that hold an initialize are refused: a session is initialized once, by an initialize alone. */
export const initializeRefusal = (
  messages: ReadonlyArray<JSONRPCMessage>,
  initialized: boolean
): Refusal | undefined => {
  if (!messages.some(isInitialize)) return undefined
  if (initialized) return refused(400, -32600, "Invalid Request: Server already initialized")
  if (messages.length > 1) return refused(400, -32600, "Invalid Request: Only one initialization request is allowed")
  return undefined
}

/** Why a GET is refused for its Accept header: it opens an event stream. */
export const getHeadersRefusal = (req: IncomingMessage): Refusal | undefined =>
  req.headers.accept?.includes("text/event-stream") === true
    ? undefined
    : refused(406, -32000, "Not Acceptable: Client must accept text/event-stream")

/**
 * Why a request after initialize is refused: the session must be initialized, named by its id, in a version it speaks.
 */
export const sessionRefusal = (req: IncomingMessage, session: SessionFacts): Refusal | undefined => {
  if (!session.initialized) return refused(400, -32000, "Bad Request: Server not initialized")
  const id = req.headers["mcp-session-id"]
  if (id === undefined) return refused(400, -32000, "Bad Request: Mcp-Session-Id header is required")
  if (id !== session.sessionId) return refused(404, -32001, "Session not found")
  const version = req.headers["mcp-protocol-version"]
  if (typeof version === "string" && !session.versions.includes(version)) {
    return refused(
      400,
      -32000,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${session.versions.join(", ")})`
    )
  }
  return undefined
}

/** Whether a check's answer is a refusal (rather than the messages it read). */
export const isRefusal = (value: ReadonlyArray<JSONRPCMessage> | Refusal): value is Refusal => !Array.isArray(value)
