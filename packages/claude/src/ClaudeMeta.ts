/**
 * What Claude-style hooks say that Interlock's verdicts cannot carry, kept in `_meta` under
 * `claude/` keys so it travels with the call or the result: context for the model
 * (`additionalContext`) and "stop the run" (`continue: false`). The bridge reads and strips them.
 */
import type { JsonObject } from "@interlock/core"

/** Meta key: the list of `additionalContext` texts the hooks gave, in order. */
export const CONTEXT_KEY = "claude/additionalContext"
/** Meta key: a hook halted the run; the value is the stop reason. */
export const HALT_KEY = "claude/stopReason"

/** The context texts recorded in a meta object. */
export const contextOf = (meta: JsonObject | undefined): ReadonlyArray<string> => {
  const value = meta?.[CONTEXT_KEY]
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []
}

/** Meta with one more context text. */
export const addContext = (meta: JsonObject | undefined, text: string): JsonObject => ({
  ...meta,
  [CONTEXT_KEY]: [...contextOf(meta), text]
})

/** The stop reason recorded in a meta object, if a hook halted. */
export const haltOf = (meta: JsonObject | undefined): string | undefined => {
  const value = meta?.[HALT_KEY]
  return typeof value === "string" ? value : undefined
}

/** Meta without the `claude/` keys, or undefined when nothing else is left. */
export const strip = (meta: JsonObject | undefined): JsonObject | undefined => {
  if (meta === undefined) return undefined
  const { [CONTEXT_KEY]: _context, [HALT_KEY]: _halt, ...rest } = meta
  return Object.keys(rest).length === 0 ? undefined : rest
}
