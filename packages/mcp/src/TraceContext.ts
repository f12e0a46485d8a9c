/**
 * W3C Trace Context and Baggage in a request's `_meta` (`traceparent`, `tracestate`, `baggage`, the
 * keys both MCP eras carry for OpenTelemetry): strict checks of what a peer sent, and the
 * traceparent of one of our own spans. The values are peer-controlled, so every check bounds the
 * length first and then runs in linear time; a value that fails is simply not a trace context.
 */

/** A parsed `traceparent`: whose trace, which span is the parent, and whether it is sampled. */
export interface TraceParent {
  readonly traceId: string
  readonly spanId: string
  readonly sampled: boolean
}

/** The longest `tracestate` carried (W3C asks vendors to propagate at least 512 characters). */
export const MAX_TRACESTATE = 512

/** The longest `baggage` carried (W3C Baggage's limit: 8192 bytes, 64 members). */
export const MAX_BAGGAGE = 8192

const MAX_BAGGAGE_MEMBERS = 64
const MAX_TRACESTATE_MEMBERS = 32

// Version 00 only: its exact shape, lowercase hex, so the check is one bounded pass.
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/
const ALL_ZERO = /^0+$/

/** A `traceparent` of version 00, or undefined for anything else (wrong shape, zero ids, too long). */
export const parseTraceparent = (value: unknown): TraceParent | undefined => {
  if (typeof value !== "string" || value.length !== 55) return undefined
  const match = TRACEPARENT.exec(value)
  if (match === null || ALL_ZERO.test(match[1]) || ALL_ZERO.test(match[2])) return undefined
  return { traceId: match[1], spanId: match[2], sampled: (parseInt(match[3], 16) & 1) === 1 }
}

/** The version-00 `traceparent` naming `parent` (ids that are not W3C's shape give undefined). */
export const formatTraceparent = (parent: TraceParent): string | undefined => {
  const value = `00-${parent.traceId}-${parent.spanId}-${parent.sampled ? "01" : "00"}`
  return parseTraceparent(value) === undefined ? undefined : value
}

// tracestate members: `key=value`, key simple or tenant@system, value printable ASCII without `,` and `=`.
const TRACESTATE_KEY = /^(?:[a-z][a-z0-9_*/-]{0,255}|[a-z0-9][a-z0-9_*/-]{0,240}@[a-z][a-z0-9_*/-]{0,13})$/
const TRACESTATE_VALUE = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/

/** Whether `value` is a W3C `tracestate` (at most 32 members and {@link MAX_TRACESTATE} characters). */
export const isTracestate = (value: unknown): value is string => {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_TRACESTATE) return false
  const members = value.split(",")
  if (members.length > MAX_TRACESTATE_MEMBERS) return false
  return members.every((raw) => {
    const member = raw.trim()
    if (member === "") return true
    const at = member.indexOf("=")
    return at > 0 && TRACESTATE_KEY.test(member.slice(0, at)) && TRACESTATE_VALUE.test(member.slice(at + 1))
  })
}

// Baggage: key is an RFC 9110 token, value baggage-octets (percent-encoded otherwise), properties after `;`.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const BAGGAGE_VALUE = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*$/

const isProperty = (raw: string): boolean => {
  const property = raw.trim()
  const at = property.indexOf("=")
  if (at < 0) return TOKEN.test(property)
  return TOKEN.test(property.slice(0, at).trim()) && BAGGAGE_VALUE.test(property.slice(at + 1).trim())
}

/** Whether `value` is W3C `baggage` (at most 64 members and {@link MAX_BAGGAGE} characters). */
export const isBaggage = (value: unknown): value is string => {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_BAGGAGE) return false
  const members = value.split(",")
  if (members.length > MAX_BAGGAGE_MEMBERS) return false
  return members.every((member) => {
    const [pair, ...properties] = member.split(";")
    const at = pair.indexOf("=")
    return at > 0 && TOKEN.test(pair.slice(0, at).trim()) && BAGGAGE_VALUE.test(pair.slice(at + 1).trim()) &&
      properties.every(isProperty)
  })
}
