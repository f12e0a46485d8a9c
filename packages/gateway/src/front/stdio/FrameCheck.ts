/**
 * The check of one parsed JSON line from a stdio host before the SDK sees it, with the validation the SDK's stdio
 * transport and the HTTP front apply (`parseJSONRPCMessage`); a frame that passes becomes the message the schema makes
 * of it. Every other frame with a request in it is answered with an Invalid Request error (`checkFrame`).
 */
import { type JSONRPCMessage, parseJSONRPCMessage } from "@modelcontextprotocol/server"
import { Result } from "effect"
import {
  BATCH_TOO_LARGE,
  EMPTY_BATCH,
  idWithinLimit,
  LimitExceeded,
  MAX_BATCH,
  MAX_ID_LENGTH
} from "../http/DoorLimits.ts"
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

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The id an answer to a frame carries: its own when it can be echoed (a string within MAX_ID_LENGTH,
 * a safe integer, or a finite fraction), else null. An integer past 2^53 would come back another number.
 */
export const replyId = (frame: unknown): ErrorReply["id"] => {
  if (!isObject(frame)) return null
  const id = frame.id
  if (typeof id === "string") return idWithinLimit(id) ? id : null
  if (typeof id !== "number" || !Number.isFinite(id)) return null
  return Number.isSafeInteger(id) || !Number.isInteger(id) ? id : null
}

/** Whether a batch member is owed an answer: all but notifications and responses (JSON-RPC 2.0, section 6). */
const owesAnswer = (member: unknown): boolean =>
  !isObject(member) || ("method" in member ? "id" in member : !("result" in member || "error" in member))

const INVALID = "Invalid request: not a valid JSON-RPC 2.0 message for MCP"
const BATCH = "Invalid request: batches are not supported; send one message per line"
const ID_OVER_CAP = new LimitExceeded({
  what: "request id",
  limit: "MAX_ID_LENGTH",
  max: MAX_ID_LENGTH,
  unit: "characters"
}).message

/** The answers to a batch: one per request in it (one in all when none is, or it is empty or past MAX_BATCH). */
const batchReplies = (batch: ReadonlyArray<unknown>): ReadonlyArray<string> => {
  if (batch.length === 0) return [errorLine(null, -32600, EMPTY_BATCH)]
  if (batch.length > MAX_BATCH) return [errorLine(null, -32600, BATCH_TOO_LARGE)]
  const ids = batch.filter(owesAnswer).map(replyId)
  return (ids.length === 0 ? [null] : ids).map((id) => errorLine(id, -32600, BATCH))
}

const validated = (frame: unknown): JSONRPCMessage | undefined => {
  try {
    return parseJSONRPCMessage(frame)
  } catch {
    return undefined
  }
}

/**
 * The message a parsed frame is, or the error lines that answer it: an Invalid Request error (-32600) with its id, or
 * `id: null` when the id cannot be echoed (`replyId`). A batch is refused (the revisions served over stdio have none),
 * each request in it answered; an empty one or one past MAX_BATCH gets one answer.
 */
export const checkFrame = (frame: unknown): Result.Result<JSONRPCMessage, ReadonlyArray<string>> => {
  if (Array.isArray(frame)) return Result.fail(batchReplies(frame))
  const message = validated(frame)
  if (message === undefined) return Result.fail([errorLine(replyId(frame), -32600, INVALID)])
  // A request whose id cannot be echoed is answered here, whatever its method: the SDK would echo it.
  if ("method" in message && "id" in message && replyId(message) === null) {
    return Result.fail([errorLine(null, -32600, idWithinLimit(message.id) ? INVALID : ID_OVER_CAP)])
  }
  // A retry's answers that are not an object of objects: the SDK would drop them and call as if none came.
  const malformed = "params" in message ? inputResponsesProblem(message.params) : undefined
  return malformed === undefined
    ? Result.succeed(message)
    : Result.fail([errorLine(replyId(frame), -32602, `Interlock: ${malformed}`)])
}
