/** The model-level events of the agent loop (core's events are the tool-level ones). */

/** Every model-level event. */
export const AGENT_EVENTS = [
  "userPromptSubmit",
  "beforeModel",
  "afterModel",
  "stop",
  "subagentStart",
  "subagentStop",
  "preCompact",
  "notification"
] as const

/** One model-level event. */
export type AgentEvent = typeof AGENT_EVENTS[number]

/** Whether a string names a model-level event. */
export const isAgentEvent = (name: string): name is AgentEvent => (AGENT_EVENTS as ReadonlyArray<string>).includes(name)

/** Events whose hooks only observe: a failure is reported and ignored. Every other event fails closed. */
export const isObserveEvent = (event: AgentEvent): boolean => event === "afterModel" || event === "notification"

/** The verdict tags each event accepts. Anything else a hook returns is a bad_return. */
export const EVENT_VERDICTS: Record<AgentEvent, ReadonlySet<string>> = {
  userPromptSubmit: new Set(["Continue", "Block", "AddContext"]),
  beforeModel: new Set(["Continue", "Rewrite", "Deny"]),
  afterModel: new Set(["Continue"]),
  stop: new Set(["Continue", "Block"]),
  subagentStart: new Set(["Continue", "Block", "AddContext"]),
  subagentStop: new Set(["Continue", "Block"]),
  preCompact: new Set(["Continue", "Block", "AddContext"]),
  notification: new Set(["Continue"])
}
