/**
 * The shape check of a 2026-07-28 retry's `inputResponses` at the door (HTTP and stdio), before
 * the SDK reads it: the SDK drops answers that are not objects, and a null map, and runs the
 * request as if none came; the revision asks a server to refuse them instead.
 */

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * What is wrong with a retry's `inputResponses` (a 2026-07-28 multi-round-trip answer), if
 * anything: when present it must be an object whose every answer is an object. The message names
 * the shape, never a value.
 */
export const inputResponsesProblem = (params: unknown): string | undefined => {
  if (!isRecord(params) || !("inputResponses" in params)) return undefined
  const responses = params.inputResponses
  if (!isRecord(responses)) return "inputResponses must be an object of answers, one per input request"
  return Object.values(responses).every(isRecord) ? undefined : "each answer in inputResponses must be an object"
}
