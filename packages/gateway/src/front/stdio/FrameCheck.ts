/**
 * The check of one JSON line from a stdio host before the SDK's stdio transport sees it, with the
 * validation the HTTP front applies (the SDK's `parseJSONRPCMessage`, the MCP JSON-RPC message
 * schema). The SDK's transport drops a frame that fails it and the host waits forever; here the
 * frame is answered with an Invalid Request error (-32600) carrying its id. A batch is refused the
 * same way, each member with an id answered, since the revisions served over stdio have no batches.
 */
import { parseJSONRPCMessage } from "@modelcontextprotocol/server"
import { idWithinLimit } from "../http/DoorLimits.ts"

/** A JSON-RPC error response; `id` is null when the frame's id could not be read. */
export interface ErrorReply {
  readonly jsonrpc: "2.0"
  readonly id: string | number | null
  readonly error: { readonly code: number; readonly message: string }
}

/** A JSON-RPC error response as one line of the stdio wire. */
export const errorLine = (id: ErrorReply["id"], code: number, message: string): string =>
  `${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } } satisfies ErrorReply)}\n`

/** The id an answer to a frame carries: its own when it is a JSON-RPC id (string within MAX_ID_LENGTH, or a finite number), else null. */
export const replyId = (frame: unknown): ErrorReply["id"] => {
  if (typeof frame !== "object" || frame === null || Array.isArray(frame)) return null
  const id = (frame as { readonly id?: unknown }).id
  if (typeof id === "string") return idWithinLimit(id) ? id : null
  return typeof id === "number" && Number.isFinite(id) ? id : null
}

const INVALID = "Invalid request: not a valid JSON-RPC 2.0 message for MCP"
const BATCH = "Invalid request: batches are not supported; send one message per line"

const isValid = (frame: unknown): boolean => {
  try {
    parseJSONRPCMessage(frame)
    return true
  } catch {
    return false
  }
}

/** The error lines that answer a parsed frame, or undefined when it is a valid message to pass on. */
export const checkFrame = (frame: unknown): ReadonlyArray<string> | undefined => {
  if (Array.isArray(frame)) {
    const ids = frame.map(replyId).filter((id) => id !== null)
    return ids.length === 0 ? [errorLine(null, -32600, BATCH)] : ids.map((id) => errorLine(id, -32600, BATCH))
  }
  return isValid(frame) ? undefined : [errorLine(replyId(frame), -32600, INVALID)]
}
