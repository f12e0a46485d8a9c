/**
 * The check of one parsed JSON line from a stdio host before the SDK sees it, with the validation
 * the SDK's own stdio transport and the HTTP front apply (the SDK's `parseJSONRPCMessage`, the MCP
 * JSON-RPC message schema); a frame that passes becomes the message the schema makes of it, as the
 * SDK's reader would deliver it. The SDK's transport drops a frame that fails it and the host waits
 * forever; here the frame is answered with an Invalid Request error (-32600) carrying its id. A
 * batch is refused the same way, each member with an id answered, since the revisions served over
 * stdio have no batches.
 */
import { type JSONRPCMessage, parseJSONRPCMessage } from "@modelcontextprotocol/server"
import { Result } from "effect"
import { idWithinLimit } from "../http/DoorLimits.ts"
import { inputResponsesProblem } from "../InputResponses.ts"

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

const validated = (frame: unknown): JSONRPCMessage | undefined => {
  try {
    return parseJSONRPCMessage(frame)
  } catch {
    return undefined
  }
}

/** The message a parsed frame is, or the error lines that answer it. */
export const checkFrame = (frame: unknown): Result.Result<JSONRPCMessage, ReadonlyArray<string>> => {
  if (Array.isArray(frame)) {
    const ids = frame.map(replyId).filter((id) => id !== null)
    return Result.fail(
      ids.length === 0 ? [errorLine(null, -32600, BATCH)] : ids.map((id) => errorLine(id, -32600, BATCH))
    )
  }
  const message = validated(frame)
  if (message === undefined) return Result.fail([errorLine(replyId(frame), -32600, INVALID)])
  // A retry's answers that are not an object of objects: the SDK would drop them and call as if none came.
  const malformed = "params" in message ? inputResponsesProblem(message.params) : undefined
  return malformed === undefined
    ? Result.succeed(message)
    : Result.fail([errorLine(replyId(frame), -32602, `Interlock: ${malformed}`)])
}
