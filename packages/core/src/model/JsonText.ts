/**
 * Reading JSON text exactly. Node 24's JSON.parse can decode an escaped object key as the key of a
 * sibling object that has a backslash at that place (`"x\n"` read as `"x\\"`; nodejs/node#63785),
 * so a check could see other keys than the sender wrote. Such a misread key always holds a
 * backslash, so only text whose parse has a key with a backslash is read again, strictly.
 */
import { parseStrict } from "../internal/StrictJsonParser.ts"

/** Whether any object key at any depth holds a backslash (iterative: deep values cannot overflow the stack). */
const hasBackslashKey = (value: unknown): boolean => {
  const pending: Array<unknown> = [value]
  while (pending.length > 0) {
    const item = pending.pop()
    if (typeof item !== "object" || item === null) continue
    if (Array.isArray(item)) {
      for (const element of item) pending.push(element)
      continue
    }
    for (const key of Object.keys(item)) {
      if (key.includes("\\")) return true
      pending.push((item as Record<string, unknown>)[key])
    }
  }
  return false
}

/**
 * Parses JSON text as JSON.parse does (the same values, the same SyntaxError for bad text), with
 * every key exactly as the text spells it. Text without a backslash costs one JSON.parse.
 */
export const parse = (text: string): unknown => {
  const value: unknown = JSON.parse(text)
  return text.includes("\\") && hasBackslashKey(value) ? parseStrict(text) : value
}
