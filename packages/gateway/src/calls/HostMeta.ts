/**
 * The `_meta` keys of a host's request that its call carries on to the server (mcp's `Caller.meta`): the client
 * capabilities the gateway can carry for that host and its client info (`hostMeta`), W3C trace context (both eras) and
 * a 2026-07-28 request's log level (`pickHostMeta`). The host's span becomes the parent of the gateway's spans
 * (`withHostSpan`).
 */
import { isBaggage, isTracestate, parseTraceparent, TASKS_EXTENSION } from "@interlock/mcp"
import {
  BAGGAGE_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  TRACEPARENT_META_KEY,
  TRACESTATE_META_KEY
} from "@modelcontextprotocol/server"
import { Context, Effect, Tracer } from "effect"
import { logLevelOf } from "./LogLevels.ts"

/**
 * The `_meta` keys the current request of a host passes on (hostMeta and pickHostMeta's), as the front provides them.
 */
export const CurrentHostMeta = Context.Reference<Readonly<Record<string, unknown>> | undefined>(
  "@interlock/gateway/CurrentHostMeta",
  { defaultValue: () => undefined }
)

/** A server's request that the gateway can carry to a host, by the client capability it needs. */
export type Carried = "sampling" | "elicitation" | "roots"

/** What the gateway carries to a 2025 host over its session (HostSessions' askHost: no roots). */
export const ASKED: ReadonlyArray<Carried> = ["sampling", "elicitation"]

/** What the gateway carries to a 2026-07-28 host within a relayed round. */
export const RELAYED: ReadonlyArray<Carried> = ["sampling", "elicitation", "roots"]

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The `_meta` keys to pass on: the host's declared capabilities among those `carried` (each as the
 * host declared it), and its client info when known. A host that declared none promises none. So a
 * 2026-07-28 server asks only for what this host can answer, never for what the gateway's own session declared.
 */
export const hostMeta = (
  declared: unknown,
  client: { readonly name: string; readonly version: string } | undefined,
  carried: ReadonlyArray<Carried>,
  tasks = false
): Readonly<Record<string, unknown>> => {
  const capabilities: Record<string, unknown> = {}
  if (isRecord(declared)) {
    for (const name of carried) if (isRecord(declared[name])) capabilities[name] = declared[name]
    // The tasks extension, when the gateway carries it for this host (a 2026-07-28 one: TaskFront.ts).
    if (tasks && isRecord(declared.extensions) && isRecord(declared.extensions[TASKS_EXTENSION])) {
      capabilities.extensions = { [TASKS_EXTENSION]: {} }
    }
  }
  return client === undefined
    ? { [CLIENT_CAPABILITIES_META_KEY]: capabilities }
    : { [CLIENT_CAPABILITIES_META_KEY]: capabilities, [CLIENT_INFO_META_KEY]: client }
}

/**
 * The keys a host request passes on: its valid trace context (tracestate only beside a valid
 * traceparent, as W3C says) and, for a 2026-07-28 request, its log level; undefined when none.
 * Trace context is host-controlled, so each key is checked strictly (mcp's TraceContext) and one that
 * fails is dropped silently: never an error, never logged.
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

/** The host's span named by the traceparent of a request's `_meta` keys, as the parent of the gateway's spans. */
export const hostSpanOf = (meta: Readonly<Record<string, unknown>> | undefined): Tracer.ExternalSpan | undefined => {
  const parent = parseTraceparent(meta?.[TRACEPARENT_META_KEY])
  return parent === undefined ? undefined : Tracer.externalSpan(parent)
}

/**
 * Runs `effect` under the host's span, when the request's `_meta` keys carry a traceparent; toward the server the
 * traceparent then names the gateway's own span.
 */
export const withHostSpan = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  meta: Readonly<Record<string, unknown>> | undefined
): Effect.Effect<A, E, R> => {
  const span = hostSpanOf(meta)
  return span === undefined ? effect : Effect.provideService(effect, Tracer.ParentSpan, span)
}
