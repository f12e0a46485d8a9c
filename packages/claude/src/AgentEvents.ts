/**
 * Claude-style hooks on the agent-level events (UserPromptSubmit, Stop, SubagentStart, SubagentStop, PreCompact,
 * Notification), as plain functions with typed outcomes, for an agent loop and for the bridge. Inputs use Claude's
 * field names. Halt stops the run; block refuses the prompt or the action (on Stop and SubagentStop it keeps the
 * agent going); a hook that fails is Failed, which callers treat closed.
 */
import { defineEvents, eventNames, verdictSchema, type VerdictTypeOf } from "@interlock/core"
import { Effect, Schema } from "effect"
import type { ClaudeFailureKind } from "./ClaudeErrors.ts"
import type { ClaudeInputOf } from "./ClaudeEvent.ts"
import { type CompiledClaudeHooks, invoke, select } from "./ClaudeHook.ts"
import { read, type Reading } from "./Reading.ts"
import { coerce } from "./ReturnValue.ts"

const optionalText = Schema.optional(Schema.String)
const Continue = {
  schema: verdictSchema("Continue", {
    additionalContext: optionalText,
    customInstructions: optionalText,
    systemMessage: optionalText
  }),
  status: "continue"
} as const
const Block = { schema: verdictSchema("Block", { reason: Schema.String }), status: "block" } as const
const KeepGoing = { schema: verdictSchema("KeepGoing", { reason: Schema.String }), status: "keep_going" } as const
const Halt = { schema: verdictSchema("Halt", { stopReason: Schema.String }), status: "halt" } as const

const refusable = {
  args: ["input"],
  verdicts: { Continue, Block, Halt },
  order: "outside-in",
  failure: "closed"
} as const
const stoppable = {
  args: ["input"],
  verdicts: { Continue, KeepGoing, Halt },
  order: "outside-in",
  failure: "closed"
} as const

/**
 * The agent-level events, as rows of core's registry (Claude's names; the agent package's
 * model-level rows are lower camel case and answer other verdicts). The verdicts are what the
 * hooks of an event decide together; a failure is Failed, which callers treat closed.
 */
export const CLAUDE_AGENT_EVENT_ROWS = defineEvents({
  UserPromptSubmit: refusable,
  Stop: stoppable,
  SubagentStart: refusable,
  SubagentStop: stoppable,
  PreCompact: refusable,
  Notification: refusable
})

/** An agent-level event. */
export type AgentEventName = keyof typeof CLAUDE_AGENT_EVENT_ROWS

/** The agent-level events. */
export const CLAUDE_AGENT_EVENTS: ReadonlyArray<AgentEventName> = eventNames(CLAUDE_AGENT_EVENT_ROWS)

/** The input of an agent-level event. */
export type AgentEventInput = ClaudeInputOf<AgentEventName>

/** Whether an event name is an agent-level event. */
export const isAgentEvent = (name: string): name is AgentEventName => Object.hasOwn(CLAUDE_AGENT_EVENT_ROWS, name)

/**
 * What the hooks of an agent-level event decided: a verdict of its row (Continue with the
 * context, instructions and messages hooks gave; Block; KeepGoing with the reason as the agent's
 * next instruction; Halt), or Failed, which callers treat closed (the bridge blocks a prompt and
 * halts a stop).
 */
export type AgentOutcome =
  | VerdictTypeOf<typeof CLAUDE_AGENT_EVENT_ROWS>
  | { readonly _tag: "Failed"; readonly hookId: string; readonly kind: ClaudeFailureKind | "bad_return" }

/** An agent hook's deadline when it sets none. */
export const DEFAULT_AGENT_HOOK_TIMEOUT_MS = 5_000

/** A block of this event keeps the agent going (its row answers KeepGoing, not Block). */
const keepsGoing = (event: AgentEventName): boolean =>
  Object.hasOwn(CLAUDE_AGENT_EVENT_ROWS[event].verdicts, "KeepGoing")

/** The outcome of one hook's reading (Continue carries that hook's context only). */
export const outcomeOf = (event: AgentEventName, reading: Reading): AgentOutcome => {
  if (reading.halt !== undefined) return { _tag: "Halt", stopReason: reading.halt }
  if (reading.block !== undefined) {
    const reason = reading.block || "blocked by a hook"
    return keepsGoing(event) ? { _tag: "KeepGoing", reason } : { _tag: "Block", reason }
  }
  return {
    _tag: "Continue",
    additionalContext: reading.additionalContext,
    customInstructions: reading.customInstructions,
    systemMessage: reading.systemMessage
  }
}

/**
 * Decodes one hook's return (a shorthand, an output object, or a command's JSON output) for an
 * agent-level event into its outcome. A value outside the hook protocol is Failed (bad_return).
 */
export const decodeAgentOutput = (event: AgentEventName, value: unknown, hookId = "hook"): AgentOutcome => {
  const { output, warnings } = coerce(value, event)
  if (warnings.length > 0) return { _tag: "Failed", hookId, kind: "bad_return" }
  const reading = read(output)
  return reading.async ? { _tag: "Continue" } : outcomeOf(event, reading)
}

const joined = (parts: ReadonlyArray<string | undefined>): string | undefined => {
  const texts = parts.filter((part): part is string => part !== undefined && part.length > 0)
  return texts.length === 0 ? undefined : texts.join("\n")
}

/**
 * Runs the hooks of an agent-level event that match its input, one at a time. Halt and failure
 * end the run at once; the first block decides unless a later hook halts; `additionalContext` and
 * `customInstructions` are collected in hook order. Never fails.
 */
export const runAgentEvent = (
  hooks: CompiledClaudeHooks,
  input: AgentEventInput,
  defaultTimeoutMs: number = DEFAULT_AGENT_HOOK_TIMEOUT_MS
): Effect.Effect<AgentOutcome> =>
  Effect.gen(function*() {
    const event = input.hook_event_name
    let blocked: AgentOutcome | undefined
    const contexts: Array<string | undefined> = []
    const instructions: Array<string | undefined> = []
    const messages: Array<string | undefined> = []
    for (const hook of select(hooks, input)) {
      if (hook.async) {
        yield* Effect.forkDetach(Effect.ignore(invoke(hook, input, defaultTimeoutMs)))
        continue
      }
      const answer = yield* Effect.result(invoke(hook, input, defaultTimeoutMs))
      if (answer._tag === "Failure") return { _tag: "Failed", hookId: hook.id, kind: answer.failure.kind } as const
      if (answer.success.warnings.length > 0) return { _tag: "Failed", hookId: hook.id, kind: "bad_return" } as const
      const reading = read(answer.success.output)
      if (reading.async) continue
      const outcome = outcomeOf(event, reading)
      if (outcome._tag === "Halt") return outcome
      if (outcome._tag !== "Continue") {
        blocked ??= outcome
        continue
      }
      contexts.push(outcome.additionalContext)
      instructions.push(outcome.customInstructions)
      messages.push(outcome.systemMessage)
    }
    if (blocked !== undefined) return blocked
    return {
      _tag: "Continue",
      additionalContext: joined(contexts),
      customInstructions: joined(instructions),
      systemMessage: joined(messages)
    } as const
  })
