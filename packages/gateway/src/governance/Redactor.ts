/**
 * Redaction: regexes and built-in detectors from the config's `redact` list, every regex on RE2 (re2js), so
 * matching is linear in the text. `redactJson` redacts every string of a JSON value, with no exemption by key,
 * iteratively, replacing what is nested deeper than {@link MAX_DEPTH} with {@link TOO_DEEP}, so it never throws.
 * The schema-aware walks of MCP content are ContentRedaction.ts's.
 */
import { ConfigError, parseMatcher } from "@interlock/core"
import { Result } from "effect"
import { RE2JS } from "re2js"
import type { RedactConfig } from "../config/Config.ts"
import type { Finder, Redaction } from "../config/Redaction.ts"
import { DETECTOR_NAMES, DETECTORS } from "./Detectors.ts"

/** The default replacement text. */
export const REDACTED = "[REDACTED]"

/** How deep `redactJson` walks: a container nested deeper than this is replaced by {@link TOO_DEEP}. */
export const MAX_DEPTH = 64

/** What replaces a value nested deeper than {@link MAX_DEPTH}. */
export const TOO_DEEP = "[TOO DEEP]"

/** A compiled redaction and its regexes, as a plan holds them. */
export type { Finder, Redaction } from "../config/Redaction.ts"

const compileUserPattern = (pattern: string): RE2JS | undefined => {
  try {
    return RE2JS.compile(RE2JS.translateRegExp(pattern))
  } catch {
    return undefined
  }
}

/** Compiles the `redact` list, or a ConfigError naming the entry at fault. */
export const compileRedactions = (entries: ReadonlyArray<RedactConfig>): ReadonlyArray<Redaction> | ConfigError => {
  const out: Array<Redaction> = []
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index]
    const path = `redact[${index}]`
    const matcher = parseMatcher(entry.match ?? "*")
    if (Result.isFailure(matcher)) return new ConfigError({ path: `${path}.match`, detail: matcher.failure })
    const finders: Array<Finder> = []
    if (entry.pattern !== undefined) {
      const regex = compileUserPattern(entry.pattern)
      if (regex === undefined) {
        return new ConfigError({
          path: `${path}.pattern`,
          detail: "is not a valid regular expression, or uses what linear-time (RE2) matching lacks: lookahead, " +
            "lookbehind, backreferences"
        })
      }
      finders.push({ regex, group: 0 })
    }
    const detectors = entry.detectors === "all" ? DETECTOR_NAMES : entry.detectors ?? []
    for (const name of detectors) {
      const detector = DETECTORS[name]
      finders.push({
        regex: RE2JS.compile(detector.source, detector.flags.includes("i") ? RE2JS.CASE_INSENSITIVE : 0),
        group: detector.group
      })
    }
    if (finders.length === 0) return new ConfigError({ path, detail: "needs a pattern or detectors" })
    out.push({
      id: `redact[${index}]`,
      match: entry.match ?? "*",
      matcher: matcher.success,
      finders,
      replacement: entry.replacement ?? REDACTED
    })
  }
  return out
}

/** The [start, end) ranges a finder masks in a text, in order, none empty. */
export const ranges = (text: string, finder: Finder): Array<readonly [number, number]> => {
  const out: Array<readonly [number, number]> = []
  const matcher = finder.regex.matcher(text)
  while (matcher.find()) {
    const start = matcher.start(finder.group)
    const end = matcher.end(finder.group)
    if (start >= 0 && end > start) out.push([start, end])
  }
  return out
}

/**
 * Masks ranges of the concatenation of `texts` and cuts the result back into the same pieces: a
 * masked range becomes the replacement in the piece where it starts and is removed from the pieces
 * after it, so the pieces joined equal the joined text with each range replaced.
 */
const maskPieces = (
  texts: ReadonlyArray<string>,
  found: ReadonlyArray<readonly [number, number]>,
  replacement: string
): Array<string> => {
  const out: Array<string> = []
  let offset = 0
  let next = 0
  for (const text of texts) {
    const end = offset + text.length
    let piece = ""
    let at = offset
    while (next < found.length && found[next][0] < end) {
      const [start, stop] = found[next]
      if (start >= at) piece += text.slice(at - offset, start - offset) + replacement
      at = Math.max(at, Math.min(stop, end))
      if (stop > end) break
      next++
    }
    out.push(piece + text.slice(at - offset))
    offset = end
  }
  return out
}

let detectors: ReadonlyArray<Redaction> | undefined

/**
 * Every built-in detector, always applied to what the audit captures and to a server's stderr;
 * compiled on first use, so that a run that never redacts (`claude-hook` on a PreToolUse) does not
 * pay for compiling them.
 */
export const detectAll = (): ReadonlyArray<
  Redaction
> => (detectors ??= compileRedactions([{ detectors: "all" }]) as ReadonlyArray<Redaction>)

/** Applies redactions to pieces of text as if they were one (a secret split across pieces is still found). */
export const redactPieces = (
  texts: ReadonlyArray<string>,
  redactions: ReadonlyArray<Redaction>
): ReadonlyArray<string> => {
  let out = texts
  for (const redaction of redactions) {
    for (const finder of redaction.finders) {
      const found = ranges(out.join(""), finder)
      if (found.length > 0) out = maskPieces(out, found, redaction.replacement)
    }
  }
  return out
}

/** Applies redactions to one string. */
export const redactText = (text: string, redactions: ReadonlyArray<Redaction>): string =>
  redactPieces([text], redactions)[0]

const PENDING: unique symbol = Symbol("pending")

interface Frame {
  readonly node: Record<string, unknown> | ReadonlyArray<unknown>
  readonly keys: ReadonlyArray<string>
  readonly out: Record<string, unknown> | Array<unknown>
  readonly depth: number
  index: number
  changed: boolean
}

// An object's key passes `f` too: a secret can be a key. Keys that map to one text are kept apart.
const outKey = (frame: Frame, key: string, f: (text: string) => string): string => {
  if (Array.isArray(frame.out)) return key
  const mapped = f(key)
  if (mapped === key) return key
  frame.changed = true
  let unique = mapped
  for (let n = 2; Object.hasOwn(frame.out, unique); n++) unique = `${mapped} (${n})`
  return unique
}

const put = (frame: Frame, key: string, value: unknown, f: (text: string) => string): void => {
  const to = outKey(frame, key, f)
  if (to === "__proto__") {
    Object.defineProperty(frame.out, to, { value, enumerable: true, writable: true, configurable: true })
  } else (frame.out as Record<string, unknown>)[to] = value
  if (value !== (frame.node as Record<string, unknown>)[key]) frame.changed = true
}

/**
 * Maps every string of a JSON value (object keys included) through `f`, without recursion; containers nested deeper
 * than `maxDepth` become {@link TOO_DEEP}. Returns the same object where nothing changed.
 */
export const mapStrings = (root: unknown, f: (text: string) => string, maxDepth: number = MAX_DEPTH): unknown => {
  const stack: Array<Frame> = []
  const enter = (node: unknown, depth: number): unknown => {
    if (typeof node === "string") return f(node)
    if (typeof node !== "object" || node === null) return node
    if (depth >= maxDepth) return TOO_DEEP
    const array = Array.isArray(node)
    stack.push({
      node: node as Frame["node"],
      keys: array ? Array.from(node.keys(), String) : Object.keys(node),
      out: array ? new Array<unknown>(node.length) : {},
      depth,
      index: 0,
      changed: false
    })
    return PENDING
  }
  const first = enter(root, 0)
  if (first !== PENDING) return first
  while (true) {
    const frame = stack[stack.length - 1]
    if (frame.index < frame.keys.length) {
      const key = frame.keys[frame.index++]
      const value = enter((frame.node as Record<string, unknown>)[key], frame.depth + 1)
      if (value !== PENDING) put(frame, key, value, f)
      continue
    }
    stack.pop()
    const done = frame.changed ? frame.out : frame.node
    if (stack.length === 0) return done
    const parent = stack[stack.length - 1]
    put(parent, parent.keys[parent.index - 1], done, f)
  }
}

/** Applies redactions to every string of a JSON value, keys included; the same object when nothing changed. */
export const redactJson = <A>(value: A, redactions: ReadonlyArray<Redaction>): A =>
  redactions.length === 0 ? value : mapStrings(value, (text) => redactText(text, redactions)) as A

/** The redactions that apply to a tool. */
export const redactionsFor = (
  redactions: ReadonlyArray<Redaction>,
  serverId: string,
  name: string
): ReadonlyArray<Redaction> => redactions.filter((redaction) => redaction.matcher.restrictTest(serverId, name))
