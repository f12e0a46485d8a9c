/**
 * Where the SEP's lifecycle events meet core's hook events, and what crosses: the payload an
 * interceptor is given (a request's params, or a result, as on the wire) and what a mutated payload
 * may become under core's rules. A request mutation may change only the arguments.
 */
import {
  ContentBlock,
  type HookEvent,
  type JsonObject,
  Tool,
  type ToolCall,
  ToolResult,
  Verdict
} from "@interlock/core"
import { Exit, Schema } from "effect"
import type { Phase } from "./InterceptorWire.ts"

/** One SEP (event, phase) that Interlock runs on one of core's hook events. */
export interface Binding {
  readonly hook: HookEvent
  readonly event: string
  readonly phase: Phase
}

/**
 * The (event, phase) pairs Interlock can run: tools/call both ways, a listing's response, and the
 * request of a resource read and a prompt get. Core has no hook for the others.
 */
export const BINDINGS: ReadonlyArray<Binding> = [
  { hook: "preToolCall", event: "tools/call", phase: "request" },
  { hook: "postToolCall", event: "tools/call", phase: "response" },
  { hook: "toolsListed", event: "tools/list", phase: "response" },
  { hook: "resourceRead", event: "resources/read", phase: "request" },
  { hook: "promptGet", event: "prompts/get", phase: "request" }
]

/** Whether a pattern is a wildcard (SEP §Hooks): all events, all of one phase, or a namespace (`tools/` then `*`). */
export const isWildcard = (pattern: string): boolean =>
  pattern === "*" || pattern.startsWith("*/") || pattern.endsWith("/*")

/** Whether a hook's event pattern, on `phase`, selects `event` (SEP §Hooks, Wildcards). */
export const selects = (pattern: string, phase: Phase, event: string): boolean =>
  pattern === event || pattern === "*" || pattern === `*/${phase}` ||
  (pattern.endsWith("/*") && pattern.length > 2 && event.startsWith(pattern.slice(0, -1)))

/** What a mutated payload becomes: a verdict, junk (not the event's payload), or refused by Interlock's rules. */
export type Mutated<V> =
  | { readonly _tag: "Apply"; readonly verdict: V }
  | { readonly _tag: "Junk" }
  | { readonly _tag: "Refused"; readonly why: string }

const JUNK = { _tag: "Junk" } as const
const apply = <V>(verdict: V): Mutated<V> => ({ _tag: "Apply", verdict })
const refused = (why: string) => ({ _tag: "Refused", why }) as const

const strict = <S extends Schema.Decoder<unknown>>(schema: S) => {
  const decode = Schema.decodeUnknownExit(schema, { onExcessProperty: "error" })
  return (value: unknown): S["Type"] | undefined => {
    const exit = decode(value)
    return Exit.isSuccess(exit) ? exit.value : undefined
  }
}

// tools/call and prompts/get requests: the params as on the wire (name, arguments), nothing else.
const NamedArgs = strict(Schema.Struct({ name: Schema.String, arguments: Schema.optional(Schema.JsonObject) }))

/** A call's request payload: its params, `{ name, arguments }`. */
export const callPayload = (call: ToolCall): JsonObject => ({ name: call.name, arguments: call.args })

/** A call's mutated request: new arguments; a new name (another tool, or another server's) is refused. */
export const callMutated = (call: ToolCall, payload: unknown): Mutated<Verdict.PreToolCallVerdict> => {
  const params = NamedArgs(payload)
  if (params === undefined) return JUNK
  if (params.name !== call.name) {
    return refused("changed the tool's name: a request mutation may change only its arguments")
  }
  return apply(Verdict.rewrite({ args: params.arguments ?? {}, name: call.name }))
}

const WireResult = strict(Schema.Struct({
  content: Schema.Array(ContentBlock),
  structuredContent: Schema.optional(Schema.JsonObject),
  isError: Schema.optional(Schema.Boolean),
  _meta: Schema.optional(Schema.JsonObject)
}))

/** A call's response payload: its result as on the wire. */
export const resultPayload = (result: ToolResult): JsonObject => ({
  content: result.content as JsonObject["content"],
  ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
  ...(result.isError === undefined ? {} : { isError: result.isError }),
  ...(result.meta === undefined ? {} : { _meta: result.meta })
})

/** A call's mutated response: the result it replaces the call's with. */
export const resultMutated = (payload: unknown): Mutated<Verdict.PostToolCallVerdict> => {
  const result = WireResult(payload)
  if (result === undefined) return JUNK
  return apply(Verdict.replace({
    content: result.content,
    ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
    ...(result.isError === undefined ? {} : { isError: result.isError }),
    ...(result._meta === undefined ? {} : { meta: result._meta })
  }))
}

/** What a blocked or refused response becomes: the result is withheld (core's postToolCall has no Deny). */
export const withheld = (reason: string): Verdict.PostToolCallVerdict =>
  Verdict.replace(ToolResult.text(`Result withheld: ${reason}.`, { isError: true }))

const WireTool = Schema.Struct({
  name: Schema.String,
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  inputSchema: Schema.JsonObject,
  outputSchema: Schema.optional(Schema.JsonObject),
  annotations: Schema.optional(Schema.JsonObject),
  _meta: Schema.optional(Schema.JsonObject)
})
const WireTools = strict(Schema.Struct({ tools: Schema.Array(WireTool) }))

/** A listing's response payload: `{ tools }` as on the wire. */
export const toolsPayload = (tools: ReadonlyArray<Tool>): JsonObject => ({
  tools: tools.map((tool): JsonObject => {
    const { serverId: _serverId, meta, ...definition } = tool
    const wire: Record<string, JsonObject[string]> = {}
    for (const [key, value] of Object.entries(definition)) if (value !== undefined) wire[key] = value
    if (meta !== undefined) wire._meta = meta
    return wire
  })
})

/** A listing's mutated response: a subset of the listed tools, each possibly redescribed; no new or renamed tool. */
export const toolsMutated = (tools: ReadonlyArray<Tool>, payload: unknown): Mutated<Verdict.ToolsListedVerdict> => {
  const listed = WireTools(payload)
  if (listed === undefined) return JUNK
  const used = new Set<Tool>()
  const out: Array<Tool> = []
  for (const { _meta, ...definition } of listed.tools) {
    const given = tools.find((tool) => tool.name === definition.name && !used.has(tool))
    if (given === undefined) {
      return refused("listed a tool that was not listed: a listing mutation may only drop or redescribe tools")
    }
    used.add(given)
    out.push(new Tool({ ...definition, serverId: given.serverId, ...(_meta === undefined ? {} : { meta: _meta }) }))
  }
  return apply(Verdict.replaceTools(out))
}

const WireRead = strict(Schema.Struct({ uri: Schema.String }))

/** A resource read's request payload: `{ uri }`. */
export const readPayload = (uri: string): JsonObject => ({ uri })

/** A read cannot be rewritten: a mutation that leaves it as it was goes on, any other is refused. */
export const readMutated = (uri: string, payload: unknown): Mutated<Verdict.ResourceReadVerdict> => {
  const params = WireRead(payload)
  if (params === undefined) return JUNK
  return params.uri === uri
    ? apply(Verdict.continue)
    : refused("changed the resource's URI, which Interlock does not rewrite")
}

/** A prompt get's request payload: `{ name, arguments }`. */
export const promptPayload = (name: string, args: JsonObject): JsonObject => ({ name, arguments: args })

/** A prompt get's mutated request: new arguments; a new name is refused. */
export const promptMutated = (name: string, payload: unknown): Mutated<Verdict.PromptGetVerdict> => {
  const params = NamedArgs(payload)
  if (params === undefined) return JUNK
  if (params.name !== name) {
    return refused("changed the prompt's name: a request mutation may change only its arguments")
  }
  return apply(Verdict.rewrite({ args: params.arguments ?? {}, name }))
}
