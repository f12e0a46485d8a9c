/**
 * The `_meta` keys of a host's request that its call carries on: W3C trace context (`traceparent`,
 * `tracestate`, `baggage`, in both eras) and, from a 2026-07-28 request's envelope, its log level.
 * They are host-controlled, so each is checked strictly (mcp's TraceContext) and dropped when it
 * fails, silently: never an error, never logged. The front picks them into the call's assigns; the
 * call path makes the host's span the parent of the gateway's spans, and passes the keys on to the
 * server through the hub's Caller (where the traceparent then names the gateway's own span).
 */
import { isBaggage, isTracestate, parseTraceparent } from "@interlock/mcp"
import { BAGGAGE_META_KEY, LOG_LEVEL_META_KEY, type LoggingLevel, TRACEPARENT_META_KEY, TRACESTATE_META_KEY } from "@modelcontextprotocol/server"
import { Effect, Tracer } from "effect"

/** The assigns key under which a call carries its host request's checked `_meta` keys. */
export const HOST_META_KEY = "interlock/hostMeta"

/** MCP's log levels, most verbose first. */
export const LOG_LEVELS: ReadonlyArray<LoggingLevel> = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]

/** `value` when it is one of MCP's log levels. */
export const logLevelOf = (value: unknown): LoggingLevel | undefined =>
  typeof value === "string" ? LOG_LEVELS.find((level) => level === value) : undefined

/**
 * The keys a host request passes on: its valid trace context (tracestate only beside a valid
 * traceparent, as W3C says) and, for a 2026-07-28 request, its log level; undefined when none.
 */
export const pickHostMeta = (meta: unknown, logLevel: unknown): Readonly<Record<string, string>> | undefined => {
  const own = typeof meta === "object" && meta !== null ? meta as Readonly<Record<string, unknown>> : {}
  const picked: Record<string, string> = {}
  const traceparent = own[TRACEPARENT_META_KEY]
  if (parseTraceparent(traceparent) !== undefined) {
    picked[TRACEPARENT_META_KEY] = traceparent as string
    if (isTracestate(own[TRACESTATE_META_KEY])) picked[TRACESTATE_META_KEY] = own[TRACESTATE_META_KEY]
  }
  if (isBaggage(own[BAGGAGE_META_KEY])) picked[BAGGAGE_META_KEY] = own[BAGGAGE_META_KEY]
  const level = logLevelOf(logLevel)
  if (level !== undefined) picked[LOG_LEVEL_META_KEY] = level
  return Object.keys(picked).length === 0 ? undefined : picked
}

/** The checked keys a call's assigns carry (HOST_META_KEY), for the hub's Caller. */
export const hostMetaOf = (assigns: Readonly<Record<string, unknown>> | undefined): Readonly<Record<string, string>> | undefined => {
  const meta = assigns?.[HOST_META_KEY]
  return typeof meta === "object" && meta !== null ? meta as Readonly<Record<string, string>> : undefined
}

/** The host's span named by a call's traceparent, as the parent of the gateway's spans. */
export const hostSpanOf = (assigns: Readonly<Record<string, unknown>> | undefined): Tracer.ExternalSpan | undefined => {
  const parent = parseTraceparent(hostMetaOf(assigns)?.[TRACEPARENT_META_KEY])
  return parent === undefined ? undefined : Tracer.externalSpan(parent)
}

/** Runs `effect` under the host's span, when the call's host sent a traceparent. */
export const withHostSpan = <A, E, R>(effect: Effect.Effect<A, E, R>, assigns: Readonly<Record<string, unknown>> | undefined): Effect.Effect<A, E, R> => {
  const span = hostSpanOf(assigns)
  return span === undefined ? effect : Effect.provideService(effect, Tracer.ParentSpan, span)
}
