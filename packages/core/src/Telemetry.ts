/**
 * Telemetry: spans through Effect's tracer (one per call, one per hook) and metrics (hook runs by
 * event/hook/verdict, calls by outcome, latency histograms). Attributes name servers, tools, call
 * ids, events, hook ids and verdicts; never arguments, results, or what a hook raised.
 *
 * Spans and metrics are made directly from the fiber (no `withSpan`, which captures a stack trace
 * per span and costs about 10 µs), so a pass-through hook stays well under a microsecond.
 */
import { Clock, Context, Exit, type Fiber, Metric, Option, References, Tracer } from "effect"

/** The metric names Interlock publishes. */
export const MetricNames = {
  hookRuns: "interlock_hook_runs_total",
  hookDuration: "interlock_hook_duration_ms",
  calls: "interlock_calls_total",
  callDuration: "interlock_call_duration_ms"
} as const

const OK_EXIT = Exit.void

/** A span's failure carries only a fixed label (the failure kind or outcome), never a raised value. */
const failedExit = (label: string) => Exit.fail(label)

const boundaries = Metric.exponentialBoundaries({ start: 0.05, factor: 2, count: 18 })

const counters = new Map<string, Metric.Counter<number>>()
const histograms = new Map<string, Metric.Histogram<number>>()
const CACHE_LIMIT = 5_000

const cached = <M>(cache: Map<string, M>, key: string, make: () => M): M => {
  let metric = cache.get(key)
  if (metric === undefined) {
    if (cache.size >= CACHE_LIMIT) cache.clear()
    metric = make()
    cache.set(key, metric)
  }
  return metric
}

const counter = (name: string, attributes: Record<string, string>) =>
  cached(counters, `${name}\u0000${Object.values(attributes).join("\u0000")}`, () => Metric.counter(name, { attributes }))

const histogram = (name: string, attributes: Record<string, string>) =>
  cached(histograms, `${name}\u0000${Object.values(attributes).join("\u0000")}`, () =>
    Metric.histogram(name, { attributes, boundaries }))

/** Clock time in nanoseconds from the fiber's Clock (so TestClock drives it in tests). */
export const nowNanos = (fiber: Fiber.Fiber<unknown, unknown>): bigint => fiber.getRef(Clock.Clock).currentTimeNanosUnsafe()

/** Milliseconds between two clock readings. */
export const elapsedMs = (start: bigint, end: bigint): number => Number(end - start) / 1e6

/** Starts a span under the fiber's current span (or `parent`), or returns undefined when tracing is off. */
export const startSpan = (
  fiber: Fiber.Fiber<unknown, unknown>,
  name: string,
  startTime: bigint,
  attributes: Record<string, string>,
  parent?: Tracer.AnySpan
): Tracer.Span | undefined => {
  if (!fiber.getRef(References.TracerEnabled)) return undefined
  const parentSpan = parent !== undefined ? Option.some(parent) : Context.getOption(fiber.context, Tracer.ParentSpan)
  const span = fiber.getRef(Tracer.Tracer).span({
    name,
    parent: parentSpan,
    annotations: Context.empty(),
    links: [],
    startTime,
    kind: "internal",
    root: false,
    sampled: Option.isNone(parentSpan) || parentSpan.value.sampled !== false
  })
  for (const key in attributes) span.attribute(key, attributes[key])
  return span
}

/** Records one hook run: a span (child of the call's span) and the hook metrics. */
export const recordHook = (
  fiber: Fiber.Fiber<unknown, unknown>,
  parent: Tracer.Span | undefined,
  attributes: {
    readonly event: string
    readonly hookId: string
    readonly verdict: string
    readonly serverId: string
    readonly name: string
    readonly callId: string
  },
  start: bigint,
  end: bigint,
  failed: boolean
): void => {
  const span = startSpan(fiber, "interlock.hook", start, {
    "interlock.event": attributes.event,
    "interlock.hook_id": attributes.hookId,
    "interlock.verdict": attributes.verdict,
    "interlock.server": attributes.serverId,
    "interlock.tool": attributes.name,
    "interlock.call_id": attributes.callId
  }, parent)
  span?.end(end, failed ? failedExit(attributes.verdict) : OK_EXIT)
  const labels = { event: attributes.event, hook: attributes.hookId, verdict: attributes.verdict }
  counter(MetricNames.hookRuns, labels).updateUnsafe(1, fiber.context)
  histogram(MetricNames.hookDuration, { event: attributes.event, hook: attributes.hookId }).updateUnsafe(
    elapsedMs(start, end),
    fiber.context
  )
}

const SUCCESSFUL_OUTCOMES = new Set(["ok", "tool_error", "halted", "recovered"])

/** Ends a call's span with its outcome, and records the call metrics. */
export const recordCall = (
  fiber: Fiber.Fiber<unknown, unknown>,
  span: Tracer.Span | undefined,
  operation: string,
  outcome: string,
  start: bigint,
  end: bigint
): void => {
  if (span !== undefined) {
    span.attribute("interlock.outcome", outcome)
    span.end(end, SUCCESSFUL_OUTCOMES.has(outcome) ? OK_EXIT : failedExit(outcome))
  }
  counter(MetricNames.calls, { operation, outcome }).updateUnsafe(1, fiber.context)
  histogram(MetricNames.callDuration, { operation }).updateUnsafe(elapsedMs(start, end), fiber.context)
}
