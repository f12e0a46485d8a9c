/**
 * Redaction: regexes and built-in detectors from the config's `redact` list, applied to every
 * string inside a JSON value (tool results toward the host, and arguments and results written to
 * the audit store or shown to an approver), resource contents and prompt messages. Base64
 * `data`/`blob` fields and `type`/`mimeType`/`uri` keys are left alone.
 */
import { ConfigError, type Matcher, type MatcherInput, parseMatcher } from "@interlock/core"
import { Result } from "effect"
import type { RedactConfig } from "./Config.ts"
import { DETECTOR_NAMES, DETECTORS } from "./Detectors.ts"

/** The default replacement text. */
export const REDACTED = "[REDACTED]"

/** One compiled redaction. */
export interface Redaction {
  readonly id: string
  /** The matcher as configured. */
  readonly match: MatcherInput
  readonly matcher: Matcher
  readonly regexes: ReadonlyArray<RegExp>
  readonly replacement: string
}

const SKIP_KEYS = new Set(["type", "mimeType", "data", "blob", "uri"])

/** Compiles the `redact` list, or a ConfigError naming the entry at fault. */
export const compileRedactions = (entries: ReadonlyArray<RedactConfig>): ReadonlyArray<Redaction> | ConfigError => {
  const out: Array<Redaction> = []
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index]
    const path = `redact[${index}]`
    const matcher = parseMatcher(entry.match ?? "*")
    if (Result.isFailure(matcher)) return new ConfigError({ path: `${path}.match`, detail: matcher.failure })
    const regexes: Array<RegExp> = []
    if (entry.pattern !== undefined) {
      try {
        regexes.push(new RegExp(entry.pattern, "gu"))
      } catch {
        return new ConfigError({ path: `${path}.pattern`, detail: "is not a valid regular expression" })
      }
    }
    const detectors = entry.detectors === "all" ? DETECTOR_NAMES : entry.detectors ?? []
    for (const name of detectors) regexes.push(new RegExp(DETECTORS[name].source, `g${DETECTORS[name].flags}`))
    if (regexes.length === 0) return new ConfigError({ path, detail: "needs a pattern or detectors" })
    out.push({ id: `redact[${index}]`, match: entry.match ?? "*", matcher: matcher.success, regexes, replacement: entry.replacement ?? REDACTED })
  }
  return out
}

/** Applies redactions to one string. */
export const redactText = (text: string, redactions: ReadonlyArray<Redaction>): string => {
  let out = text
  for (const redaction of redactions) {
    for (const regex of redaction.regexes) {
      regex.lastIndex = 0
      out = out.replace(regex, redaction.replacement)
    }
  }
  return out
}

/** Applies redactions to every string of a JSON value; returns the same object when nothing changed. */
export const redactJson = <A>(value: A, redactions: ReadonlyArray<Redaction>): A => {
  if (redactions.length === 0) return value
  const walk = (node: unknown): unknown => {
    if (typeof node === "string") return redactText(node, redactions)
    if (Array.isArray(node)) {
      let changed = false
      const next = node.map((item) => {
        const out = walk(item)
        if (out !== item) changed = true
        return out
      })
      return changed ? next : node
    }
    if (typeof node === "object" && node !== null) {
      let changed = false
      const next: Record<string, unknown> = {}
      for (const [key, item] of Object.entries(node)) {
        const out = SKIP_KEYS.has(key) && typeof item === "string" ? item : walk(item)
        if (out !== item) changed = true
        next[key] = out
      }
      return changed ? next : node
    }
    return node
  }
  return walk(value) as A
}

/** The redactions that apply to a tool. */
export const redactionsFor = (redactions: ReadonlyArray<Redaction>, serverId: string, name: string): ReadonlyArray<Redaction> =>
  redactions.filter((redaction) => redaction.matcher.test(serverId, name))
