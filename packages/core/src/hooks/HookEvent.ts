/**
 * The events a hook can attach to: the registry's rows for the tool-call program. Everything the
 * config validator, the decoder, the chain and the receipt know about an event is read from here.
 */
import { Schema } from "effect"
import { isJsonObject } from "../model/Canonical.ts"
import { Tool } from "../model/Tool.ts"
import type { ToolCall } from "../model/ToolCall.ts"
import { ToolResult } from "../model/ToolResult.ts"
import { defineEvents, eventNames, type StatusOf, verdictSchema, type VerdictTagOf } from "./EventRegistry.ts"

const JsonObject = Schema.declare(isJsonObject, { identifier: "JsonObject" })

/** The longest note a Continue may carry into the receipt. */
export const MAX_NOTE_LENGTH = 256
/** A Continue may note, for the receipt, what the hook saw without acting on it (never call data). */
const Note = Schema.String.check(Schema.isMaxLength(MAX_NOTE_LENGTH))
const Continue = { schema: verdictSchema("Continue", { note: Schema.optional(Note) }), status: "continue" } as const
const Deny = { schema: verdictSchema("Deny", { reason: Schema.String }), status: "deny" } as const

/** A call rewrite: args and/or meta; serverId, name and callId may be echoed, never changed. */
const RewriteCall = {
  schema: verdictSchema("Rewrite", {
    args: Schema.optional(JsonObject),
    meta: Schema.optional(JsonObject),
    serverId: Schema.optional(Schema.String),
    name: Schema.optional(Schema.String),
    callId: Schema.optional(Schema.String)
  }).check(Schema.makeFilter((v) => v.args !== undefined || v.meta !== undefined, { expected: "args or meta" })),
  status: "rewrite",
  check: (
    v: {
      readonly serverId?: string | undefined
      readonly name?: string | undefined
      readonly callId?: string | undefined
    },
    input: { readonly call: ToolCall }
  ): boolean =>
    (v.serverId === undefined || v.serverId === input.call.serverId) &&
    (v.name === undefined || v.name === input.call.name) &&
    (v.callId === undefined || v.callId === input.call.callId)
} as const

/** A prompt's new args; its name may be echoed, never changed. */
const RewriteArgs = {
  schema: verdictSchema("Rewrite", { args: JsonObject, name: Schema.optional(Schema.String) }),
  status: "rewrite",
  check: (v: { readonly name?: string | undefined }, input: { readonly name: string }): boolean =>
    v.name === undefined || v.name === input.name
} as const

/**
 * A listing's new tools: each one exactly a given tool (serverId and name), possibly annotated. A
 * loose match would let `Read-File` stand in for `read_file`.
 */
const ReplaceTools = {
  schema: verdictSchema("ReplaceTools", { tools: Schema.Array(Tool) }),
  status: "replace",
  check: (v: { readonly tools: ReadonlyArray<Tool> }, input: { readonly tools: ReadonlyArray<Tool> }): boolean =>
    v.tools.every((tool) => input.tools.some((g) => g.serverId === tool.serverId && g.name === tool.name))
} as const

const withResult = <const T extends string, const S extends string>(tag: T, status: S) =>
  ({ schema: verdictSchema(tag, { result: ToolResult }), status }) as const

/** The tool-call program's events, in the order the README lists them. */
export const HOOK_EVENT_ROWS = defineEvents({
  preToolCall: {
    args: ["call", "ctx"],
    verdicts: { Continue, Rewrite: RewriteCall, Deny, Halt: withResult("Halt", "halt") },
    order: "outside-in",
    failure: "closed"
  },
  postToolCall: {
    args: ["call", "result", "ctx"],
    verdicts: { Continue, Replace: withResult("Replace", "replace") },
    order: "inside-out",
    failure: "onError"
  },
  toolCallFailed: {
    args: ["call", "error", "ctx"],
    verdicts: { Continue, Recover: withResult("Recover", "recover") },
    order: "inside-out",
    failure: "onError"
  },
  toolsListed: {
    args: ["tools", "ctx"],
    verdicts: { Continue, ReplaceTools },
    order: "outside-in",
    failure: "closed"
  },
  resourceRead: {
    args: ["uri", "ctx"],
    verdicts: { Continue, Deny },
    order: "outside-in",
    failure: "closed"
  },
  promptGet: {
    args: ["name", "args", "ctx"],
    verdicts: { Continue, Rewrite: RewriteArgs, Deny },
    order: "outside-in",
    failure: "closed"
  }
})

/** One event of the tool-call program. */
export type HookEvent = keyof typeof HOOK_EVENT_ROWS

/** Every event of the tool-call program. */
export const HOOK_EVENTS: ReadonlyArray<HookEvent> = eventNames(HOOK_EVENT_ROWS)

/** A verdict tag some event of the tool-call program accepts. */
export type HookVerdictTag = VerdictTagOf<typeof HOOK_EVENT_ROWS>

/** A status a hook run of the tool-call program records when it gave a verdict. */
export type VerdictStatus = StatusOf<typeof HOOK_EVENT_ROWS>

/** Whether a string names an event. */
export const isHookEvent = (name: string): name is HookEvent => Object.hasOwn(HOOK_EVENT_ROWS, name)
