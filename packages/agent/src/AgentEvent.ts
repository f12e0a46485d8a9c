/**
 * The model-level events of the agent loop (core's events are the tool-level ones), as rows of
 * core's event registry: each hook gets one input object, hooks run in declaration order, and
 * what each event accepts, records and does with a failure is read from its row.
 */
import { defineEvents, eventNames, verdictSchema, verdictTags } from "@interlock/core"
import { Schema } from "effect"
import { Prompt } from "effect/ai"
import type { AgentTool } from "./Catalog.ts"

/** A tool a Rewrite keeps: its name, or an object with its name (an AgentTool). */
const ToolRef = Schema.Union([
  Schema.String,
  Schema.StructWithRest(Schema.Struct({ name: Schema.String }), [Schema.Record(Schema.String, Schema.Unknown)])
])

/** The name a tool reference gives, if any. */
export const toolRefName = (item: unknown): unknown =>
  typeof item === "string" ? item : (item as { readonly name?: unknown } | null)?.name

const Continue = { schema: verdictSchema("Continue", {}), status: "continue" } as const
const Block = { schema: verdictSchema("Block", { reason: Schema.String }), status: "block" } as const
const AddContext = { schema: verdictSchema("AddContext", { text: Schema.String }), status: "add_context" } as const
const Deny = { schema: verdictSchema("Deny", { reason: Schema.String }), status: "deny" } as const

/** New messages and/or a subset of the offered tools: a hook narrows the tools it was given, it cannot invent one. */
const Rewrite = {
  schema: verdictSchema("Rewrite", {
    messages: Schema.optional(Schema.Array(Prompt.Message)),
    tools: Schema.optional(Schema.Array(ToolRef))
  }).check(
    Schema.makeFilter((v) => v.messages !== undefined || v.tools !== undefined, { expected: "messages or tools" })
  ),
  status: "rewrite",
  check: (
    v: { readonly tools?: ReadonlyArray<unknown> | undefined },
    input: { readonly offered: ReadonlyArray<AgentTool> }
  ): boolean =>
    v.tools === undefined || v.tools.every((item) => input.offered.some((tool) => tool.name === toolRefName(item)))
} as const

/** Keep the text back until the next delta: not accepted when the text ends (`final`), so nothing stays held. */
const Hold = {
  schema: verdictSchema("Hold", {}),
  status: "hold",
  check: (_v: unknown, input: { readonly final?: boolean | undefined }): boolean => input.final !== true
} as const

/** Replace the text held back so far (this delta included) with `text`. */
const RewriteText = { schema: verdictSchema("Rewrite", { text: Schema.String }), status: "rewrite" } as const

/** The verdict rows, for a decoder's fast paths (any other row is decoded through its Schema). */
export const VERDICT_ROWS = { Continue, Block, AddContext, Deny, Rewrite, Hold, RewriteText } as const

const gate = { args: ["input"], order: "outside-in", failure: "closed" } as const
const observe = { args: ["input"], verdicts: { Continue }, order: "outside-in", failure: "observe" } as const

/** The model-level events, in the order the docs list them. */
export const AGENT_EVENT_ROWS = defineEvents({
  userPromptSubmit: { ...gate, verdicts: { Continue, Block, AddContext } },
  beforeModel: { ...gate, verdicts: { Continue, Rewrite, Deny } },
  afterModel: observe,
  afterModelChunk: { ...gate, verdicts: { Continue, Rewrite: RewriteText, Hold, Block } },
  stop: { ...gate, verdicts: { Continue, Block } },
  subagentStart: { ...gate, verdicts: { Continue, Block, AddContext } },
  subagentStop: { ...gate, verdicts: { Continue, Block } },
  preCompact: { ...gate, verdicts: { Continue, Block, AddContext } },
  notification: observe
})

/** One model-level event. */
export type AgentEvent = keyof typeof AGENT_EVENT_ROWS

/** Every model-level event. */
export const AGENT_EVENTS: ReadonlyArray<AgentEvent> = eventNames(AGENT_EVENT_ROWS)

/** Whether a string names a model-level event. */
export const isAgentEvent = (name: string): name is AgentEvent => Object.hasOwn(AGENT_EVENT_ROWS, name)

/** Events whose hooks only observe: a failure is reported and ignored. Every other event fails closed. */
export const isObserveEvent = (event: AgentEvent): boolean => AGENT_EVENT_ROWS[event].failure === "observe"

/** The verdict tags each event accepts. Anything else a hook returns is a bad_return. */
export const EVENT_VERDICTS: { readonly [E in AgentEvent]: ReadonlySet<string> } = verdictTags(AGENT_EVENT_ROWS)
