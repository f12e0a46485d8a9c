/** The events a hook can attach to, with the facts the config validator and the runner need. */

/** Every event of the tool-call program. */
export const HOOK_EVENTS = ["preToolCall", "postToolCall", "toolCallFailed", "toolsListed", "resourceRead", "promptGet"] as const

/** One event of the tool-call program. */
export type HookEvent = typeof HOOK_EVENTS[number]

/** How many arguments each event passes to its hooks (a hook may declare fewer, never more). */
export const EVENT_ARITY: Record<HookEvent, number> = {
  preToolCall: 2,
  postToolCall: 3,
  toolCallFailed: 3,
  toolsListed: 2,
  resourceRead: 2,
  promptGet: 3
}

/** Events whose hooks run inside-out (reverse onion order). */
export const isInsideOut = (event: HookEvent): boolean => event === "postToolCall" || event === "toolCallFailed"

/** Events that accept `onError` (the seed allows it on post-hooks and failure hooks only). */
export const acceptsOnError = (event: HookEvent): boolean => isInsideOut(event)

/** Whether a string names an event. */
export const isHookEvent = (name: string): name is HookEvent => (HOOK_EVENTS as ReadonlyArray<string>).includes(name)
