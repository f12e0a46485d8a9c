/**
 * Compiling the model-level hooks config (validated, with a ConfigError naming the entry at fault)
 * and decoding what a hook returned against its event's verdicts.
 */
import { ConfigError, isDeadline, toMillis, verdictKeys } from "@interlock/core"
import { Exit, Schema } from "effect"
import { Prompt } from "effect/ai"
import { AGENT_EVENT_ROWS, AGENT_EVENTS, type AgentEvent, EVENT_VERDICTS, toolRefName } from "./AgentEvent.ts"
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
  }
  | { readonly _tag: "Deny"; readonly reason: string }
  | { readonly _tag: "Block"; readonly reason: string }
  | { readonly _tag: "AddContext"; readonly text: string }

/** The decoder's answer for anything outside the contract. */
export const BAD = Symbol.for("@interlock/agent/BadReturn")

const CONTINUE: DecodedVerdict = { _tag: "Continue" }

const { beforeModel, userPromptSubmit } = AGENT_EVENT_ROWS
const KEYS = {
  continue: verdictKeys(beforeModel.verdicts.Continue.schema),
  rewrite: verdictKeys(beforeModel.verdicts.Rewrite.schema),
  reason: verdictKeys(beforeModel.verdicts.Deny.schema),
  text: verdictKeys(userPromptSubmit.verdicts.AddContext.schema)
}
const decodeMessages = Schema.decodeUnknownExit(Schema.Array(Prompt.Message))

const onlyKeys = (value: object, keys: ReadonlyArray<string>): boolean =>
  Object.keys(value).every((key) => keys.includes(key))

const decodeRewrite = (
  record: Record<string, unknown>,
  offered: ReadonlyArray<AgentTool>
): DecodedVerdict | typeof BAD => {
  if (!onlyKeys(record, KEYS.rewrite)) return BAD
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
    if (!beforeModel.verdicts.Rewrite.check({ tools: record.tools }, { offered })) return BAD
    tools = []
    for (const item of record.tools) {
      const name = toolRefName(item)
      const tool = offered.find((t) => t.name === name)
      if (tool !== undefined && !tools.includes(tool)) tools.push(tool)
    }
  }
  return { _tag: "Rewrite", messages, tools }
}

/**
 * Decodes what a hook returned against its event's verdicts. `offered` is the tool list a
 * beforeModel hook was given. Never throws, whatever the value.
 */
export const decodeAgentVerdict = (
  event: AgentEvent,
  value: unknown,
  offered: ReadonlyArray<AgentTool>
): DecodedVerdict | typeof BAD => {
  try {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return BAD
    const record = value as Record<string, unknown>
    const tag = record._tag
    if (typeof tag !== "string" || !EVENT_VERDICTS[event].has(tag)) return BAD
    switch (tag) {
      case "Continue":
        return onlyKeys(record, KEYS.continue) ? CONTINUE : BAD
      case "Deny":
      case "Block":
        return onlyKeys(record, KEYS.reason) && typeof record.reason === "string"
          ? { _tag: tag, reason: record.reason }
          : BAD
      case "AddContext":
        return onlyKeys(record, KEYS.text) && typeof record.text === "string"
          ? { _tag: "AddContext", text: record.text }
          : BAD
      case "Rewrite":
        return decodeRewrite(record, offered)
      default:
        return BAD
    }
  } catch {
    return BAD
  }
}
