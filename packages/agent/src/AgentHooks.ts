/**
 * Compiling the model-level hooks config (validated, with a ConfigError naming the entry at fault)
 * and decoding what a hook returned against its event's verdicts.
 */
import { acceptsVerdict, ConfigError, isDeadline, toMillis, verdictKeys, type VerdictRow } from "@interlock/core"
import { Exit, Schema } from "effect"
import { Prompt } from "effect/ai"
import { AGENT_EVENT_ROWS, AGENT_EVENTS, type AgentEvent, toolRefName, VERDICT_ROWS } from "./AgentEvent.ts"
import type { AgentTool } from "./Catalog.ts"

/** One compiled model-level hook. */
export interface AgentHook {
  readonly id: string
  readonly event: AgentEvent
  readonly run: (input: unknown) => unknown
  /** Its own deadline in ms; undefined means the agent's hookTimeout. */
  readonly timeoutMs: number | undefined
}

/** Compiled hooks, per event, in declaration order. */
export type CompiledAgentHooks = { readonly [E in AgentEvent]: ReadonlyArray<AgentHook> }

const ENTRY_KEYS = new Set(["run", "id", "timeout"])

const kindOf = (value: unknown): string => (value === null ? "null" : Array.isArray(value) ? "an array" : typeof value)

const compileEntry = (event: AgentEvent, index: number, raw: unknown, ids: Set<string>): AgentHook | ConfigError => {
  const where = `${event}[${index}]`
  const error = (detail: string) => new ConfigError({ path: where, detail })
  const entry = typeof raw === "function" ? { run: raw } : raw
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
    return error(`an entry must be a function or { run, id?, timeout? }, got ${kindOf(raw)}`)
  }
  for (const key of Object.keys(entry)) if (!ENTRY_KEYS.has(key)) return error(`unknown option "${key}"`)
  const { run, id, timeout } = entry as { run?: unknown; id?: unknown; timeout?: unknown }
  if (typeof run !== "function") return error(`run must be a function, got ${kindOf(run)}`)
  const arity = AGENT_EVENT_ROWS[event].args.length
  if (run.length > arity) {
    return error(`run takes ${run.length} arguments, but ${event} passes ${arity} (its input object)`)
  }
  if (id !== undefined && (typeof id !== "string" || id.length === 0)) return error("id must be a non-empty string")
  const hookId = (id as string | undefined) ?? where
  if (ids.has(hookId)) return error(`duplicate hook id "${hookId}"`)
  const timeoutMs = timeout === undefined ? undefined : toMillis(timeout)
  if (timeoutMs !== undefined && !isDeadline(timeoutMs)) return error("timeout must be a positive, finite duration")
  ids.add(hookId)
  return { id: hookId, event, run: run as (input: unknown) => unknown, timeoutMs }
}

/** Compiles the model-level part of a hooks config. `config` holds only model-level events. */
export const compileAgentHooks = (config: Record<string, unknown>): CompiledAgentHooks | ConfigError => {
  const byEvent = Object.fromEntries(AGENT_EVENTS.map((event) => [event, [] as Array<AgentHook>])) as Record<
    AgentEvent,
    Array<AgentHook>
  >
  const ids = new Set<string>()
  for (const event of AGENT_EVENTS) {
    const entries = config[event]
    if (entries === undefined) continue
    if (!Array.isArray(entries)) {
      return new ConfigError({ path: event, detail: `must be an array of hook entries, got ${kindOf(entries)}` })
    }
    for (let i = 0; i < entries.length; i++) {
      const hook = compileEntry(event, i, entries[i], ids)
      if (hook instanceof ConfigError) return hook
      byEvent[event].push(hook)
    }
  }
  return byEvent
}

/** A decoded model-level verdict. */
export type DecodedVerdict =
  | { readonly _tag: "Continue" }
  | {
    readonly _tag: "Rewrite"
    readonly messages: ReadonlyArray<Prompt.Message> | undefined
    readonly tools: ReadonlyArray<AgentTool> | undefined
    /** afterModelChunk's Rewrite: the text that replaces what was held back. */
    readonly text?: string | undefined
  }
  | { readonly _tag: "Deny"; readonly reason: string }
  | { readonly _tag: "Block"; readonly reason: string }
  | { readonly _tag: "AddContext"; readonly text: string }
  | { readonly _tag: "Hold" }

/** The decoder's answer for anything outside the contract. */
export const BAD = Symbol.for("@interlock/agent/BadReturn")

const CONTINUE: DecodedVerdict = { _tag: "Continue" }
const HOLD: DecodedVerdict = { _tag: "Hold" }

const decodeMessages = Schema.decodeUnknownExit(Schema.Array(Prompt.Message))

const onlyKeys = (value: object, keys: ReadonlyArray<string>): boolean =>
  Object.keys(value).every((key) => keys.includes(key))

/**
 * Decodes one tag's record, given the tools offered (beforeModel) and whether a chunk's text ends (afterModelChunk).
 */
type TagDecoder = (
  record: Record<string, unknown>,
  offered: ReadonlyArray<AgentTool>,
  final: boolean
) => DecodedVerdict | typeof BAD

const decodeRewrite: TagDecoder = (record, offered) => {
  if (!onlyKeys(record, REWRITE_KEYS)) return BAD
  if (record.messages === undefined && record.tools === undefined) return BAD
  let messages: ReadonlyArray<Prompt.Message> | undefined
  if (record.messages !== undefined) {
    const exit = decodeMessages(record.messages)
    if (Exit.isFailure(exit)) return BAD
    messages = exit.value
  }
  let tools: Array<AgentTool> | undefined
  if (record.tools !== undefined) {
    if (!Array.isArray(record.tools)) return BAD
    // The row's check: a hook narrows the tools it was given; it cannot invent one.
    if (!VERDICT_ROWS.Rewrite.check({ tools: record.tools }, { offered })) return BAD
    tools = []
    for (const item of record.tools) {
      const name = toolRefName(item)
      const tool = offered.find((t) => t.name === name)
      if (tool !== undefined && !tools.includes(tool)) tools.push(tool)
    }
  }
  return { _tag: "Rewrite", messages, tools }
}

const REWRITE_KEYS = verdictKeys(VERDICT_ROWS.Rewrite.schema)

/** A verdict whose payload is one string field, checked by hand (the hot path). */
const stringField = (row: VerdictRow, tag: "Deny" | "Block" | "AddContext" | "Rewrite", field: string): TagDecoder => {
  const keys = verdictKeys(row.schema)
  return (record) => {
    if (!onlyKeys(record, keys) || typeof record[field] !== "string") return BAD
    return tag === "Rewrite"
      ? { _tag: tag, text: record[field] as string, messages: undefined, tools: undefined }
      : ({ _tag: tag, [field]: record[field] } as DecodedVerdict)
  }
}

/** Hand-written decoders of the known verdict rows; they agree with the rows' Schemas (tested). */
const FAST = new Map<VerdictRow, TagDecoder>([
  [VERDICT_ROWS.Continue, (record) => (onlyKeys(record, verdictKeys(VERDICT_ROWS.Continue.schema)) ? CONTINUE : BAD)],
  [VERDICT_ROWS.Deny, stringField(VERDICT_ROWS.Deny, "Deny", "reason")],
  [VERDICT_ROWS.Block, stringField(VERDICT_ROWS.Block, "Block", "reason")],
  [VERDICT_ROWS.AddContext, stringField(VERDICT_ROWS.AddContext, "AddContext", "text")],
  [VERDICT_ROWS.Rewrite, decodeRewrite],
  [VERDICT_ROWS.RewriteText, stringField(VERDICT_ROWS.RewriteText, "Rewrite", "text")],
  [
    VERDICT_ROWS.Hold,
    (record, _offered, final) =>
      onlyKeys(record, verdictKeys(VERDICT_ROWS.Hold.schema)) && VERDICT_ROWS.Hold.check(record, { final }) ? HOLD : BAD
  ]
])

/** Any other verdict row: its Schema and its check decide. */
const fromRow = (row: VerdictRow): TagDecoder => {
  // The row's Schema decodes to one of its event's verdicts.
  const accepts = acceptsVerdict(row.schema) as (value: unknown) => value is DecodedVerdict
  const check = row.check as ((verdict: unknown, input: unknown) => boolean) | undefined
  return (record, offered, final) =>
    accepts(record) && (check === undefined || check(record, { offered, final }))
      ? record
      : BAD
}

/** Per event, per accepted tag, its decoder (built once from the rows). */
const DECODERS: ReadonlyMap<AgentEvent, ReadonlyMap<string, TagDecoder>> = new Map(
  AGENT_EVENTS.map((event) => [
    event,
    new Map(
      Object.entries(AGENT_EVENT_ROWS[event].verdicts as Record<string, VerdictRow>).map((
        [tag, row]
      ) => [tag, FAST.get(row) ?? fromRow(row)])
    )
  ])
)

/**
 * Decodes what a hook returned against its event's verdicts and their checks: `offered` is the
 * tool list a beforeModel hook was given, `final` whether an afterModelChunk hook's text ends
 * there. Never throws, whatever the value.
 */
export const decodeAgentVerdict = (
  event: AgentEvent,
  value: unknown,
  offered: ReadonlyArray<AgentTool>,
  final = false
): DecodedVerdict | typeof BAD => {
  try {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return BAD
    const record = value as Record<string, unknown>
    const tag = record._tag
    if (typeof tag !== "string") return BAD
    const decode = DECODERS.get(event)?.get(tag)
    return decode === undefined ? BAD : decode(record, offered, final)
  } catch {
    return BAD
  }
}
