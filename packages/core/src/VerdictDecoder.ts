/**
 * Decoding of what a hook returned. A hook is untrusted code: its return is checked against its
 * event's verdicts (narrowed by its kind) and anything else, an allow-like object included, is
 * `bad_return`. Pure; the runner calls it on the hot path, so Continue is checked first.
 */
import { Exit, Schema } from "effect"
import { isJsonObject } from "./Canonical.ts"
import type { HookEvent } from "./HookEvent.ts"
import { Tool } from "./Tool.ts"
import { type JsonObject, type ToolCall } from "./ToolCall.ts"
import { ToolResult } from "./ToolResult.ts"

/** A hook's declared kind, which narrows the verdicts it may return. */
export type HookKind = "guard" | "transform" | "observe"

/** A verdict after decoding: payloads are checked, typed values. */
export type Decoded =
  | { readonly _tag: "Continue" }
  | { readonly _tag: "Rewrite"; readonly call: ToolCall }
  | { readonly _tag: "RewriteArgs"; readonly args: JsonObject }
  | { readonly _tag: "Deny"; readonly reason: string }
  | { readonly _tag: "Halt"; readonly result: ToolResult }
  | { readonly _tag: "Replace"; readonly result: ToolResult }
  | { readonly _tag: "ReplaceTools"; readonly tools: ReadonlyArray<Tool> }
  | { readonly _tag: "Recover"; readonly result: ToolResult }

/** What the decoder needs to know about the input, per event. */
export type DecodeInput =
  | { readonly event: "preToolCall"; readonly call: ToolCall }
  | { readonly event: "postToolCall" | "toolCallFailed" | "resourceRead" }
  | { readonly event: "toolsListed"; readonly tools: ReadonlyArray<Tool> }
  | { readonly event: "promptGet"; readonly name: string }

/** The decoder's answer for anything outside the contract. */
export const BAD_RETURN = Symbol.for("@interlock/core/BadReturn")

const CONTINUE: Decoded = { _tag: "Continue" }

const ALLOWED: Record<HookEvent, ReadonlySet<string>> = {
  preToolCall: new Set(["Continue", "Rewrite", "Deny", "Halt"]),
  postToolCall: new Set(["Continue", "Replace"]),
  toolCallFailed: new Set(["Continue", "Recover"]),
  toolsListed: new Set(["Continue", "Replace"]),
  resourceRead: new Set(["Continue", "Deny"]),
  promptGet: new Set(["Continue", "Rewrite", "Deny"])
}

const BY_KIND: Record<HookKind, ReadonlySet<string>> = {
  guard: new Set(["Continue", "Deny", "Halt"]),
  transform: new Set(["Continue", "Rewrite", "Replace", "Recover"]),
  observe: new Set(["Continue"])
}

const decodeResult = Schema.decodeUnknownExit(ToolResult)
const decodeTool = Schema.decodeUnknownExit(Tool)

const onlyKeys = (value: object, keys: ReadonlyArray<string>): boolean => {
  for (const key in value) if (!keys.includes(key)) return false
  return true
}

const result = (value: unknown): ToolResult | typeof BAD_RETURN => {
  const exit = decodeResult(value)
  if (Exit.isFailure(exit)) return BAD_RETURN
  // A hook cannot forge a receipt: the pipeline attaches the real one.
  return exit.value.receipt === undefined ? exit.value : new ToolResult({ ...exit.value, receipt: undefined })
}

const rewriteCall = (value: Record<string, unknown>, call: ToolCall): Decoded | typeof BAD_RETURN => {
  if (!onlyKeys(value, ["_tag", "args", "meta", "serverId", "name", "callId"])) return BAD_RETURN
  if (value.serverId !== undefined && value.serverId !== call.serverId) return BAD_RETURN
  if (value.name !== undefined && value.name !== call.name) return BAD_RETURN
  if (value.callId !== undefined && value.callId !== call.callId) return BAD_RETURN
  if (value.args !== undefined && !isJsonObject(value.args)) return BAD_RETURN
  if (value.meta !== undefined && !isJsonObject(value.meta)) return BAD_RETURN
  if (value.args === undefined && value.meta === undefined) return BAD_RETURN
  return {
    _tag: "Rewrite",
    call: call.with({
      args: value.args as JsonObject | undefined,
      ...(value.meta !== undefined ? { meta: value.meta as JsonObject } : {})
    })
  }
}

const rewriteArgs = (value: Record<string, unknown>, name: string): Decoded | typeof BAD_RETURN => {
  if (!onlyKeys(value, ["_tag", "args", "name"])) return BAD_RETURN
  if (value.name !== undefined && value.name !== name) return BAD_RETURN
  if (!isJsonObject(value.args)) return BAD_RETURN
  return { _tag: "RewriteArgs", args: value.args }
}

const replaceTools = (value: Record<string, unknown>, given: ReadonlyArray<Tool>): Decoded | typeof BAD_RETURN => {
  if (!onlyKeys(value, ["_tag", "tools"]) || !Array.isArray(value.tools)) return BAD_RETURN
  const tools: Array<Tool> = []
  for (const item of value.tools) {
    const exit = decodeTool(item)
    if (Exit.isFailure(exit)) return BAD_RETURN
    const tool = exit.value
    // A listing hook shapes what was listed; it cannot invent or rename a tool: the name must be
    // exactly one given (a loose match would let `Read-File` stand in for `read_file`).
    if (!given.some((g) => g.serverId === tool.serverId && g.name === tool.name)) return BAD_RETURN
    tools.push(tool)
  }
  return { _tag: "ReplaceTools", tools }
}

const withResult = (tag: "Halt" | "Replace" | "Recover", value: Record<string, unknown>): Decoded | typeof BAD_RETURN => {
  if (!onlyKeys(value, ["_tag", "result"])) return BAD_RETURN
  const decoded = result(value.result)
  return decoded === BAD_RETURN ? BAD_RETURN : { _tag: tag, result: decoded }
}

/**
 * Decodes what a hook returned against its event's verdicts and its kind. Returns the typed
 * verdict, or BAD_RETURN. Never throws, whatever the value (getters that throw included).
 */
export const decodeVerdict = (
  input: DecodeInput,
  kind: HookKind | undefined,
  value: unknown
): Decoded | typeof BAD_RETURN => {
  try {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return BAD_RETURN
    const record = value as Record<string, unknown>
    const tag = record._tag
    if (typeof tag !== "string" || !ALLOWED[input.event].has(tag)) return BAD_RETURN
    if (kind !== undefined && !BY_KIND[kind].has(tag)) return BAD_RETURN
    switch (tag) {
      case "Continue":
        return onlyKeys(record, ["_tag"]) ? CONTINUE : BAD_RETURN
      case "Deny":
        return onlyKeys(record, ["_tag", "reason"]) && typeof record.reason === "string"
          ? { _tag: "Deny", reason: record.reason }
          : BAD_RETURN
      case "Rewrite":
        return input.event === "preToolCall"
          ? rewriteCall(record, input.call)
          : input.event === "promptGet"
          ? rewriteArgs(record, input.name)
          : BAD_RETURN
      case "Replace":
        return input.event === "toolsListed" ? replaceTools(record, input.tools) : withResult("Replace", record)
      case "Halt":
      case "Recover":
        return withResult(tag, record)
      default:
        return BAD_RETURN
    }
  } catch {
    // A Proxy or a throwing getter is junk too.
    return BAD_RETURN
  }
}
