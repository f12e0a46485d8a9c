/**
 * Which of the config's hooks `serve --interceptors` serves, and as what: a hook with an id is the interceptor
 * `hook:<id>`, a validator where its verdicts can only let go or refuse, a mutator where they can rewrite or replace,
 * on the SEP event and phase of its hook event. A hook no SEP contract fits is not served, and this says why.
 */
import { type CompiledHook, HOOK_EVENTS, type HookEvent, type HookKind } from "@interlock/core"

/** The prefix of a named hook's interceptor name. */
export const HOOK_INTERCEPTOR_PREFIX = "hook:"

/** The interceptor name of the hook `id` (hook ids are unique across events: core refuses a repeated one). */
export const hookInterceptorName = (id: string): string => `${HOOK_INTERCEPTOR_PREFIX}${id}`

/** The SEP events a named hook can be served on. */
export type HookSepEvent = "tools/call" | "resources/read" | "prompts/get"

/** How a hook is served: a validator or a mutator on one event's phase, or not at all, and why. */
export type HookServing =
  | {
    readonly _tag: "Served"
    readonly type: "validation" | "mutation"
    readonly event: HookSepEvent
    readonly phase: "request" | "response"
  }
  | { readonly _tag: "NotServed"; readonly why: string }

const validator = (event: HookSepEvent): HookServing => ({
  _tag: "Served",
  type: "validation",
  event,
  phase: "request"
})
const mutator = (event: HookSepEvent, phase: "request" | "response" = "request"): HookServing => ({
  _tag: "Served",
  type: "mutation",
  event,
  phase
})
const notServed = (why: string): HookServing => ({ _tag: "NotServed", why })

const OBSERVER = notServed("an observer only answers Continue, which no validator or mutator needs")
const ONLY_CONTINUE = (event: string, kind: string) =>
  notServed(`a ${kind} on ${event} can only answer Continue, which no validator or mutator needs`)

/** The row of an event no kind of hook is served on. */
const unserved = (why: HookServing): Record<HookKind | "any", HookServing> => ({
  guard: why,
  transform: why,
  any: why,
  observe: OBSERVER
})

/**
 * Per event and declared kind (`any`: none declared, so any verdict of its event). A hook that may Deny or Halt and
 * also rewrite is a mutator, and its Deny or Halt an error (a mutator cannot refuse in the SEP): it fails closed.
 */
const TABLE: Record<HookEvent, Record<HookKind | "any", HookServing>> = {
  preToolCall: {
    guard: validator("tools/call"),
    transform: mutator("tools/call"),
    any: mutator("tools/call"),
    observe: OBSERVER
  },
  postToolCall: {
    guard: ONLY_CONTINUE("postToolCall", "guard"),
    transform: mutator("tools/call", "response"),
    any: mutator("tools/call", "response"),
    observe: OBSERVER
  },
  resourceRead: {
    guard: validator("resources/read"),
    transform: ONLY_CONTINUE("resourceRead", "transform"),
    any: validator("resources/read"),
    observe: OBSERVER
  },
  promptGet: {
    guard: validator("prompts/get"),
    transform: mutator("prompts/get"),
    any: mutator("prompts/get"),
    observe: OBSERVER
  },
  toolCallFailed: unserved(notServed("the SEP has no event for a failed call")),
  toolsListed: unserved(
    notServed("a toolsListed hook shapes this gateway's listing by server, which a tools/list payload lacks")
  )
}

/** Hooks per event as one list in the config's order: by event, then as written (not in run order). */
export const inConfigOrder = <H extends CompiledHook>(
  byEvent: { readonly [E in HookEvent]: ReadonlyArray<H> }
): ReadonlyArray<H> => HOOK_EVENTS.flatMap((event) => [...byEvent[event]].sort((a, b) => a.index - b.index))

/** Whether a hook was given an id (rather than core's default `<event>[<index>]`). */
export const isNamed = (hook: CompiledHook): boolean => hook.id !== `${hook.event}[${hook.index}]`

/** How `serve --interceptors` serves a config hook. */
export const servingOf = (hook: CompiledHook): HookServing => {
  if (!isNamed(hook)) return notServed(`it has no id: give it one to serve it as ${hookInterceptorName("<id>")}`)
  const serving = TABLE[hook.event][hook.kind ?? "any"]
  // A response payload is the result alone: which tool answered is not in it, so only a hook on every tool can run.
  if (serving._tag === "Served" && serving.phase === "response" && !selectsEveryTool(hook)) {
    return notServed("its match names tools, and a tools/call response does not say which tool answered")
  }
  return serving
}

const selectsEveryTool = (hook: CompiledHook): boolean =>
  hook.matcher.level === "global" || (hook.matcher.level === "server" && hook.matcher.anyServer)

/** A served hook as `interceptors/list` gives it (SEP §Interface). */
export const hookDescriptor = (hook: CompiledHook, serving: Extract<HookServing, { _tag: "Served" }>) => ({
  name: hookInterceptorName(hook.id),
  description: `The Interlock gateway config's ${hook.event} hook "${hook.id}"${
    hook.kind === undefined ? "" : ` (${hook.kind})`
  }`,
  type: serving.type,
  hook: { events: [serving.event], phase: serving.phase }
})

/** What `interlock check` and `serve --interceptors` say of the config's hooks: each one, served as what or why not. */
export const describeHookServing = (hooks: ReadonlyArray<CompiledHook>): ReadonlyArray<ReadonlyArray<string>> =>
  hooks.map((hook) => {
    const serving = servingOf(hook)
    return serving._tag === "Served"
      ? [hookInterceptorName(hook.id), hook.event, `${serving.type} on ${serving.event} ${serving.phase}`]
      : [hook.id, hook.event, `not served: ${serving.why}`]
  })
