/**
 * Claude Code's hook events and their input objects, in Claude's field names (`hook_event_name`,
 * `tool_name`, `tool_input`, `tool_use_id`, `session_id`, `cwd`, `permission_mode`, ...). Unknown
 * keys are kept as they came. `decodeEvent` checks an event read from a boundary (stdin, a file).
 */
import { JsonText } from "@interlock/core"
import { Cause, Exit, Schema } from "effect"
import { BadEvent } from "./ClaudeErrors.ts"

/** Every Claude Code hook event Interlock speaks. */
export const CLAUDE_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PermissionRequest",
  "UserPromptSubmit",
  "Stop",
  "SubagentStart",
  "SubagentStop",
  "PreCompact",
  "Notification"
] as const

/** One Claude Code hook event name. */
export type ClaudeEventName = typeof CLAUDE_EVENTS[number]

/** The tool events: they carry `tool_name` and `tool_input`. */
export const TOOL_EVENTS: ReadonlySet<ClaudeEventName> = new Set([
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PermissionRequest"
])

/** Whether a string names an event. */
export const isClaudeEvent = (name: unknown): name is ClaudeEventName =>
  typeof name === "string" && (CLAUDE_EVENTS as ReadonlyArray<string>).includes(name)

const base = {
  session_id: Schema.optional(Schema.String),
  transcript_path: Schema.optional(Schema.String),
  cwd: Schema.optional(Schema.String),
  permission_mode: Schema.optional(Schema.String),
  agent_id: Schema.optional(Schema.String),
  agent_type: Schema.optional(Schema.String)
}

const tool = {
  tool_name: Schema.String,
  tool_input: Schema.JsonObject,
  tool_use_id: Schema.optional(Schema.String)
}

const Rest = [Schema.Record(Schema.String, Schema.Unknown)] as const

const event = <const E extends ClaudeEventName, const F extends Schema.Struct.Fields>(name: E, fields: F) =>
  Schema.StructWithRest(Schema.Struct({ hook_event_name: Schema.Literal(name), ...base, ...fields }), Rest)

/** PreToolUse: before a tool runs. */
export const PreToolUseInput = event("PreToolUse", tool)
/** PostToolUse: after a tool answered; `tool_response` is what it returned. */
export const PostToolUseInput = event("PostToolUse", { ...tool, tool_response: Schema.optional(Schema.Json) })
/** PostToolUseFailure: after a tool failed. */
export const PostToolUseFailureInput = event("PostToolUseFailure", {
  ...tool,
  error: Schema.optional(Schema.String),
  is_interrupt: Schema.optional(Schema.Boolean)
})
/** PermissionRequest: Claude Code is about to ask the user for permission. */
export const PermissionRequestInput = event("PermissionRequest", {
  ...tool,
  permission_suggestions: Schema.optional(Schema.Array(Schema.Json))
})
/** UserPromptSubmit: the user submitted a prompt. */
export const UserPromptSubmitInput = event("UserPromptSubmit", { prompt: Schema.String })
/** Stop: the agent is about to stop. */
export const StopInput = event("Stop", {
  stop_hook_active: Schema.optional(Schema.Boolean),
  last_assistant_message: Schema.optional(Schema.String)
})
/** SubagentStart: a subagent was started. */
export const SubagentStartInput = event("SubagentStart", {})
/** SubagentStop: a subagent is about to stop. */
export const SubagentStopInput = event("SubagentStop", {
  stop_hook_active: Schema.optional(Schema.Boolean),
  agent_transcript_path: Schema.optional(Schema.String),
  last_assistant_message: Schema.optional(Schema.String)
})
/** PreCompact: before the conversation is compacted. */
export const PreCompactInput = event("PreCompact", {
  trigger: Schema.optional(Schema.Literals(["manual", "auto"])),
  custom_instructions: Schema.optional(Schema.NullOr(Schema.String))
})
/** Notification: the agent sent a status message. */
export const NotificationInput = event("Notification", {
  message: Schema.String,
  notification_type: Schema.optional(Schema.String),
  title: Schema.optional(Schema.String)
})

/** The input Schema of each event. */
export const INPUT_SCHEMAS = {
  PreToolUse: PreToolUseInput,
  PostToolUse: PostToolUseInput,
  PostToolUseFailure: PostToolUseFailureInput,
  PermissionRequest: PermissionRequestInput,
  UserPromptSubmit: UserPromptSubmitInput,
  Stop: StopInput,
  SubagentStart: SubagentStartInput,
  SubagentStop: SubagentStopInput,
  PreCompact: PreCompactInput,
  Notification: NotificationInput
} as const

/** The input of one event, by name. */
export type ClaudeInputOf<E extends ClaudeEventName> = typeof INPUT_SCHEMAS[E]["Type"]

/** The input of any event. */
export type ClaudeInput = { [E in ClaudeEventName]: ClaudeInputOf<E> }[ClaudeEventName]

/** The input of a tool event. */
export type ClaudeToolInput = ClaudeInputOf<"PreToolUse" | "PostToolUse" | "PostToolUseFailure" | "PermissionRequest">

const decoders = Object.fromEntries(
  CLAUDE_EVENTS.map((name) => [name, Schema.decodeUnknownExit(INPUT_SCHEMAS[name] as Schema.Codec<unknown, unknown>)])
) as Record<ClaudeEventName, (input: unknown) => Exit.Exit<unknown, Schema.SchemaError>>

/** A short, one-line text for a decode failure: field paths and expected types, never values. */
const oneLine = (error: Schema.SchemaError): string => {
  const text = String(error.message).replace(/\n\s*at /g, " at ").replace(/\s*\n\s*/g, "; ")
  return text.length > 200 ? `${text.slice(0, 197)}...` : text
}

const safeName = (name: string): string => (/^[A-Za-z]{1,40}$/.test(name) ? name : "(not a plain name)")

/**
 * Checks an event object read from a boundary. Fails with BadEvent naming what is wrong (an
 * unknown event, or a field with its expected type); never echoes a field's value.
 */
export const decodeEvent = (value: unknown): Exit.Exit<ClaudeInput, BadEvent> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return Exit.fail(new BadEvent({ detail: "the event must be a JSON object" }))
  }
  const name = (value as { hook_event_name?: unknown }).hook_event_name
  if (name === undefined) return Exit.fail(new BadEvent({ detail: "hook_event_name is missing" }))
  if (typeof name !== "string") return Exit.fail(new BadEvent({ detail: "hook_event_name must be a string" }))
  if (!isClaudeEvent(name)) {
    return Exit.fail(
      new BadEvent({ detail: `unknown hook_event_name ${safeName(name)}; the events are ${CLAUDE_EVENTS.join(", ")}` })
    )
  }
  const exit = decoders[name](value)
  if (Exit.isSuccess(exit)) return Exit.succeed(exit.value as ClaudeInput)
  const error = Cause.findErrorOption(exit.cause)
  const detail = error._tag === "Some" ? oneLine(error.value) : "the event could not be read"
  return Exit.fail(new BadEvent({ detail: `invalid ${name} event: ${detail}` }))
}

/** Parses one event from JSON text (what Claude Code writes on a hook's stdin). */
export const parseEvent = (text: string): Exit.Exit<ClaudeInput, BadEvent> => {
  let value: unknown
  try {
    value = JsonText.parse(text)
  } catch {
    return Exit.fail(new BadEvent({ detail: "stdin is not valid JSON" }))
  }
  return decodeEvent(value)
}
