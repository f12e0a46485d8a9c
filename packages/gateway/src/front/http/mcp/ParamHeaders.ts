/**
 * SEP-2243's custom headers from tool parameters, checked on a 2026-07-28 tools/call: a tool's `inputSchema` declares
 * (`x-mcp-header`) which arguments a host mirrors into `Mcp-Param-{Name}` headers; a call whose headers disagree with
 * its body is refused (HeaderMismatch) before anything acts on either. Pure rules; ToolHeaders.ts finds the tool's
 * declarations. Header values are attacker input: each is bounded, every loop over one a linear pass.
 */
import { Schema } from "effect"
import { isUtf8 } from "node:buffer"

/** The JSON-RPC code of a refusal (the revision's HeaderMismatch). */
export const HEADER_MISMATCH = -32020

/** The longest `Mcp-Param-*` value the gateway reads (characters); a longer one is refused as invalid. */
export const MAX_PARAM_HEADER_LENGTH = 8_192

/**
 * How deep a chain of `properties` the declarations are looked for in (a schema from a server is not trusted to be
 * shallow).
 */
export const MAX_DECLARATION_DEPTH = 16

/**
 * One declared header: the argument's path (its chain of `properties` keys) and the header's name after `Mcp-Param-`.
 */
export interface ParamHeader {
  readonly path: ReadonlyArray<string>
  readonly name: string
}

/** Why a call's headers refuse it. */
export type HeaderFault = "missing" | "repeated" | "invalid" | "mismatch"

/** A call refused for one header; its message names the header, never its value. */
export class HeaderMismatch extends Schema.TaggedError<HeaderMismatch>()("HeaderMismatch", {
  header: Schema.String,
  fault: Schema.Literals(["missing", "repeated", "invalid", "mismatch"])
}) {
  override get message(): string {
    switch (this.fault) {
      case "missing":
        return `Header mismatch: the body's arguments carry the value of the ${this.header} header, which is missing`
      case "repeated":
        return `Header mismatch: the ${this.header} header is sent more than once`
      case "invalid":
        return `Header mismatch: the ${this.header} header is not a valid value (visible ASCII, or =?base64?...?= ` +
          `of UTF-8)`
      case "mismatch":
        return `Header mismatch: the ${this.header} header does not match the body's arguments`
    }
  }
}

// RFC 9110 token: a single character class, so linear; a longer name than this is no header a host sends.
const MAX_HEADER_NAME = 256
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const SENTINEL_PREFIX = "=?base64?"
const SENTINEL_SUFFIX = "?="

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The headers a tool's input schema declares: each `x-mcp-header` naming a token, on a property
 * reached from the root through `properties` alone (the only place the revision allows one).
 */
export const declaredHeaders = (inputSchema: unknown): ReadonlyArray<ParamHeader> => {
  const found: Array<ParamHeader> = []
  const visit = (schema: Record<string, unknown>, path: ReadonlyArray<string>) => {
    if (path.length >= MAX_DECLARATION_DEPTH || !isObject(schema.properties)) return
    for (const [key, child] of Object.entries(schema.properties)) {
      if (!isObject(child)) continue
      const name = child["x-mcp-header"]
      if (typeof name === "string" && name.length <= MAX_HEADER_NAME && TOKEN.test(name)) {
        found.push({ path: [...path, key], name })
      }
      visit(child, [...path, key])
    }
  }
  if (isObject(inputSchema)) visit(inputSchema, [])
  return found
}

// The 6-bit value of a Base64 character (standard alphabet), or -1.
const sextet = (code: number): number =>
  code >= 65 && code <= 90 ?
    code - 65
    : code >= 97 && code <= 122 ?
    code - 71
    : code >= 48 && code <= 57 ?
    code + 4
    : code === 43 ?
    62
    : code === 47 ?
    63
    : -1

/**
 * The bytes of canonical Base64 (standard alphabet, padded, the bits padding drops zero); undefined for anything else.
 */
export const decodeBase64 = (text: string): Buffer | undefined => {
  if (text.length % 4 !== 0) return undefined
  const pad = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0
  const end = text.length - pad
  for (let i = 0; i < end; i++) if (sextet(text.charCodeAt(i)) < 0) return undefined
  const last = end > 0 ? sextet(text.charCodeAt(end - 1)) : 0
  if ((pad === 2 && (last & 0x0f) !== 0) || (pad === 1 && (last & 0x03) !== 0)) return undefined
  return Buffer.from(text, "base64")
}

// RFC 9110 field values: visible ASCII, space and tab, with no leading or trailing space or tab.
const isFieldText = (value: string): boolean => {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i)
    if (code !== 0x09 && (code < 0x20 || code > 0x7e)) return false
  }
  return true
}

const trimOws = (value: string): string => {
  let start = 0
  let end = value.length
  while (start < end && (value[start] === " " || value[start] === "\t")) start++
  while (end > start && (value[end - 1] === " " || value[end - 1] === "\t")) end--
  return value.slice(start, end)
}

const isSentinel = (value: string): boolean => value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX)

/**
 * The argument text an `Mcp-Param-*` value carries: the value itself, or the UTF-8 its `=?base64?...?=` sentinel wraps;
 * undefined for a value too long, with a character no field value has, or a sentinel that is not canonical Base64 of
 * UTF-8. Base64 is decoded strictly (canonical padding, zero pad bits, UTF-8), so no two header values decode to the
 * same argument unless both are plain.
 */
export const decodeParamValue = (raw: string): string | undefined => {
  if (raw.length > MAX_PARAM_HEADER_LENGTH) return undefined
  const value = trimOws(raw)
  if (!isFieldText(value)) return undefined
  if (!isSentinel(value)) return value
  // "=?base64?=" both starts and ends the sentinel, with the two overlapping: no value encodes to it.
  if (value.length < SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length) return undefined
  const bytes = decodeBase64(value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length))
  return bytes === undefined || !isUtf8(bytes) ? undefined : bytes.toString("utf8")
}

/**
 * The header value a host sends for argument text: plain when it is visible ASCII with no edge spaces and no sentinel
 * look, else the sentinel.
 */
export const encodeParamValue = (text: string): string => {
  let plain = !isSentinel(text) && text === trimOws(text)
  for (let i = 0; plain && i < text.length; i++) plain = text.charCodeAt(i) >= 0x20 && text.charCodeAt(i) <= 0x7e
  return plain ? text : `${SENTINEL_PREFIX}${Buffer.from(text, "utf8").toString("base64")}${SENTINEL_SUFFIX}`
}

// The argument at a path of own properties (a key like "constructor" never reads the prototype).
const valueAt = (args: unknown, path: ReadonlyArray<string>): unknown => {
  let node = args
  for (const key of path) {
    if (!isObject(node) || !Object.hasOwn(node, key)) return undefined
    node = node[key]
  }
  return node
}

/**
 * The value a header mirrors: a string, boolean or finite number (a safe integer, if whole); undefined when there is
 * none to mirror.
 */
const mirrored = (value: unknown): string | number | boolean | undefined => {
  if (typeof value === "string" || typeof value === "boolean") return value
  if (
    typeof value === "number" && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))
  ) return value
  return undefined
}

// Plain decimal, so that "42.0" and 42 agree (the revision's SHOULD); one pass, no backtracking.
const DECIMAL = /^-?\d+(?:\.\d+)?$/

/**
 * Whether header text agrees with the body's value: numbers numerically, the rest by their text (booleans as "true" and
 * "false").
 */
const agrees = (text: string, value: string | number | boolean): boolean =>
  typeof value === "number"
    ? (DECIMAL.test(text) ? Number(text) === value : text === String(value))
    : text === String(value)

/**
 * Checks a call's `Mcp-Param-*` headers against its arguments, as the revision's table says: a
 * value in the body needs its header, present once and equal once decoded; a header whose
 * argument is absent or null mirrors nothing and is refused too (it disagrees with the body).
 * `read` gives a header's values by its lowercase name.
 */
export const checkParamHeaders = (
  declared: ReadonlyArray<ParamHeader>,
  args: unknown,
  read: (name: string) => ReadonlyArray<string> | undefined
): HeaderMismatch | undefined => {
  for (const { name, path } of declared) {
    const header = `Mcp-Param-${name}`
    const values = read(header.toLowerCase()) ?? []
    const value = mirrored(valueAt(args, path))
    if (values.length === 0) {
      if (value === undefined) continue
      return new HeaderMismatch({ header, fault: "missing" })
    }
    if (values.length > 1) return new HeaderMismatch({ header, fault: "repeated" })
    const text = decodeParamValue(values[0] ?? "")
    if (text === undefined) return new HeaderMismatch({ header, fault: "invalid" })
    if (value === undefined || !agrees(text, value)) return new HeaderMismatch({ header, fault: "mismatch" })
  }
  return undefined
}
