/**
 * The check of a callTool input, which may come from anywhere (a host's JSON, a script). Each field is read once
 * and args and meta are copied into plain data (JsonCopy.ts), so a getter or Proxy cannot show the check one value
 * and the pipeline another; a read that throws is an invalid call, not a defect. An invalid call is still
 * recorded, under its usable string fields, without arguments or meta.
 */
import { ProtocolError } from "../model/Errors.ts"
import { makeToolCall, type ToolCall } from "../model/ToolCall.ts"
import { copyStrictJsonObject, JSON_COPY_MAX_DEPTH } from "./JsonCopy.ts"

/** The checked input: the call to run (or to record), and why it is invalid, if it is. */
export interface CheckedInput {
  readonly call: ToolCall
  readonly invalid: ProtocolError | undefined
}

interface Fields {
  readonly serverId: unknown
  readonly name: unknown
  readonly args: unknown
  readonly callId: unknown
  readonly meta: unknown
}

const problemOf = (fields: Fields): string | undefined =>
  typeof fields.serverId !== "string" || fields.serverId.length === 0
    ? "serverId must be a non-empty string"
    : typeof fields.name !== "string" || fields.name.length === 0
    ? "name must be a non-empty string"
    : typeof fields.args === "string"
    ? `args ${fields.args}`
    : typeof fields.meta === "string"
    ? `meta ${fields.meta}`
    : fields.callId !== undefined && (typeof fields.callId !== "string" || fields.callId.length === 0)
    ? "callId must be a non-empty string"
    : undefined

const PROBLEMS = {
  "not JSON": "must be a JSON object",
  "too deep": `must be a JSON object nested at most ${JSON_COPY_MAX_DEPTH} deep`
}

/** The plain copy of an args or meta field, or (a string) what is wrong with it. */
const copyOf = (value: unknown): unknown => {
  if (value === undefined) return undefined
  const copy = copyStrictJsonObject(value)
  return typeof copy === "string" ? PROBLEMS[copy] : copy
}

const stringOr = (value: unknown, fallback: () => string): string =>
  typeof value === "string" && value.length > 0 ? value : fallback()

const EMPTY = () => ""
const newId = () => crypto.randomUUID()

const invalid = (fields: Fields | undefined, problem: string): CheckedInput => {
  const serverId = stringOr(fields?.serverId, EMPTY)
  return {
    call: makeToolCall({
      serverId,
      name: stringOr(fields?.name, EMPTY),
      args: {},
      callId: stringOr(fields?.callId, newId)
    }),
    invalid: new ProtocolError({ serverId, code: -32602, detail: `invalid call: ${problem}` })
  }
}

/** Checks a callTool input. Never throws. */
export const checkInput = (input: unknown): CheckedInput => {
  if (typeof input !== "object" || input === null) return invalid(undefined, "the call must be an object")
  let fields: Fields
  let problem: string | undefined
  try {
    const record = input as Record<string, unknown>
    fields = {
      serverId: record.serverId,
      name: record.name,
      args: record.args,
      callId: record.callId,
      meta: record.meta
    }
    // Copied inside the try: a nested getter or Proxy trap may throw.
    fields = { ...fields, args: copyOf(fields.args), meta: copyOf(fields.meta) }
    problem = problemOf(fields)
  } catch {
    return invalid(undefined, "the call could not be read")
  }
  if (problem !== undefined) return invalid(fields, problem)
  return {
    call: makeToolCall({
      serverId: fields.serverId as string,
      name: fields.name as string,
      args: (fields.args ?? {}) as ToolCall["args"],
      callId: stringOr(fields.callId, newId),
      meta: fields.meta as ToolCall["meta"]
    }),
    invalid: undefined
  }
}
