/**
 * Decoding of what a hook returned: a hook is untrusted code, so its return is checked against its event's
 * verdicts (the rows of HookEvent.ts, narrowed by its kind), and anything else, an allow-like object included, is
 * `bad_return`. Pure and on the hot path: Continue is checked first and payloads by hand, and a test holds these
 * checks to the rows' Schemas.
 */
import { Exit, Schema } from "effect"
import { makeTrusted } from "../internal/Trusted.ts"
import { isJsonObject } from "../model/Canonical.ts"
import { Tool } from "../model/Tool.ts"
import type { JsonObject, ToolCall } from "../model/ToolCall.ts"
import { ToolResult } from "../model/ToolResult.ts"
import { verdictKeys, verdictTags } from "./EventRegistry.ts"
import { HOOK_EVENT_ROWS, type HookVerdictTag, MAX_NOTE_LENGTH } from "./HookEvent.ts"

/** A hook's declared kind, which narrows the verdicts it may return. */
export type HookKind = "guard" | "transform" | "observe"

/** A verdict after decoding: payloads are checked, typed values. */
export type Decoded =
  | { readonly _tag: "Continue"; readonly note?: string }
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

/** A Continue, with its note when it has one within MAX_NOTE_LENGTH. */
const noted = (note: unknown): Decoded | typeof BAD_RETURN =>
  note === undefined
    ? CONTINUE
    : typeof note === "string" && note.length <= MAX_NOTE_LENGTH
    ? { _tag: "Continue", note }
    : BAD_RETURN

const ALLOWED = verdictTags(HOOK_EVENT_ROWS)

const BY_KIND: Record<HookKind, ReadonlySet<HookVerdictTag>> = {
  guard: new Set(["Continue", "Deny", "Halt"]),
  transform: new Set(["Continue", "Rewrite", "Replace", "ReplaceTools", "Recover"]),
  observe: new Set(["Continue"])
}

const { preToolCall, promptGet, toolsListed } = HOOK_EVENT_ROWS

const KEYS = {
  call: verdictKeys(preToolCall.verdicts.Rewrite.schema),
  args: verdictKeys(promptGet.verdicts.Rewrite.schema),
  tools: verdictKeys(toolsListed.verdicts.ReplaceTools.schema),
  deny: verdictKeys(preToolCall.verdicts.Deny.schema),
  result: verdictKeys(preToolCall.verdicts.Halt.schema),
  continue: verdictKeys(preToolCall.verdicts.Continue.schema)
}

/** The keys a Rewrite may echo from its input. */
type Echo = { readonly serverId?: string; readonly name?: string; readonly callId?: string }

const decodeResult = Schema.decodeUnknownExit(ToolResult)
const decodeTool = Schema.decodeUnknownExit(Tool)

const onlyKeys = (value: object, keys: ReadonlyArray<string>): boolean => {
  for (const key in value) if (!keys.includes(key)) return false
  return true
}

const result = (value: unknown): ToolResult | typeof BAD_RETURN => {
  const exit = decodeResult(value)
  if (Exit.isFailure(exit)) return BAD_RETURN
  // A hook cannot forge a receipt: a decoded object has none, and a result it passes on loses its own.
  if (exit.value.receipt === undefined) return exit.value
  const { receipt: _, ...fields } = exit.value
  return makeTrusted(ToolResult, fields)
}

// The rows' checks are given the decoder's input itself: no allocation on the hot path.
const rewriteCall = (
  value: Record<string, unknown>,
  input: { readonly call: ToolCall }
): Decoded | typeof BAD_RETURN => {
  if (!onlyKeys(value, KEYS.call)) return BAD_RETURN
  // The row's check compares with ===, so a value that is not a string never passes it.
  if (!preToolCall.verdicts.Rewrite.check(value as Echo, input)) return BAD_RETURN
  if (value.args !== undefined && !isJsonObject(value.args)) return BAD_RETURN
  if (value.meta !== undefined && !isJsonObject(value.meta)) return BAD_RETURN
  if (value.args === undefined && value.meta === undefined) return BAD_RETURN
  return {
    _tag: "Rewrite",
    call: input.call.with({
      args: value.args as JsonObject | undefined,
      ...(value.meta !== undefined ? { meta: value.meta as JsonObject } : {})
    })
  }
}

const rewriteArgs = (value: Record<string, unknown>, input: { readonly name: string }): Decoded | typeof BAD_RETURN => {
  if (!onlyKeys(value, KEYS.args)) return BAD_RETURN
  if (!promptGet.verdicts.Rewrite.check(value as Echo, input)) return BAD_RETURN
  if (!isJsonObject(value.args)) return BAD_RETURN
  return { _tag: "RewriteArgs", args: value.args }
}

const replaceTools = (
  value: Record<string, unknown>,
  input: { readonly tools: ReadonlyArray<Tool> }
): Decoded | typeof BAD_RETURN => {
  if (!onlyKeys(value, KEYS.tools) || !Array.isArray(value.tools)) return BAD_RETURN
  const tools: Array<Tool> = []
  for (const item of value.tools) {
    const exit = decodeTool(item)
    if (Exit.isFailure(exit)) return BAD_RETURN
    tools.push(exit.value)
  }
  // A listing hook shapes what was listed; it cannot invent or rename a tool.
  return toolsListed.verdicts.ReplaceTools.check({ tools }, input) ? { _tag: "ReplaceTools", tools } : BAD_RETURN
}

const withResult = (
  tag: "Halt" | "Replace" | "Recover",
  value: Record<string, unknown>
): Decoded | typeof BAD_RETURN => {
  if (!onlyKeys(value, KEYS.result)) return BAD_RETURN
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
    if (kind !== undefined && !BY_KIND[kind].has(tag as HookVerdictTag)) return BAD_RETURN
    switch (tag) {
      case "Continue":
        return onlyKeys(record, KEYS.continue) ? noted(record.note) : BAD_RETURN
      case "Deny":
        return onlyKeys(record, KEYS.deny) && typeof record.reason === "string"
          ? { _tag: "Deny", reason: record.reason }
          : BAD_RETURN
      case "Rewrite":
        return input.event === "preToolCall"
          ? rewriteCall(record, input)
          : input.event === "promptGet"
          ? rewriteArgs(record, input)
          : BAD_RETURN
      case "ReplaceTools":
        return input.event === "toolsListed" ? replaceTools(record, input) : BAD_RETURN
      case "Replace":
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
