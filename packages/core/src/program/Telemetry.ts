/**
 * Telemetry: spans through Effect's tracer (one per call, one per hook) and metrics (hook runs by
 * event/hook/verdict, calls by outcome, latency histograms), naming servers, tools, call ids, events, hook ids and
 * verdicts; never arguments, results, or what a hook raised. Spans come from the fiber's tracer (not `withSpan`,
 * which captures a stack), none under the native tracer; metric series resolve once.
 */
import { Context, Exit, type Fiber, Metric, Option, References, Tracer } from "effect"

/** The metric names Interlock publishes. */
export const MetricNames = {
  hookRuns: "interlock_hook_runs_total",
  hookDuration: "interlock_hook_duration_ms",
  calls: "interlock_calls_total",
  callDuration: "interlock_call_duration_ms",
  /** Fibers left running (supervised) because they missed a deadline and did not yield to interruption. */
  detached: "interlock_detached_total"
} as const

const OK_EXIT = Exit.void
/** A span's failure carries only a fixed label (the failure kind or outcome), never a raised value. */
const failedExit = (label: string) => Exit.fail(label)
const SUCCESSFUL_OUTCOMES = new Set(["ok", "tool_error", "halted", "recovered"])
const boundaries = Metric.exponentialBoundaries({ start: 0.05, factor: 2, count: 18 })

/**
 * Monotonic time in milliseconds (fractional), for durations. Read from `performance.now()`, not
 * from Effect's Clock: a Clock reading builds BigInts and costs more than a pass-through hook may.
 * Deadlines still run on Effect's Clock (so TestClock drives them); durations are wall time.
 */
export const now = (): number => performance.now()

/** Milliseconds between two readings of {@link now}. */
export const elapsedMs = (start: number, end: number): number => end - start

const ORIGIN_NANOS = BigInt(Math.round(performance.timeOrigin * 1e6))

/** Span timestamps (epoch nanoseconds) from a {@link now} reading. */
const spanTime = (reading: number): bigint => ORIGIN_NANOS + BigInt(Math.round(reading * 1e6))

/** The tracer to record with, or undefined when tracing is off or goes nowhere (the native tracer). */
const activeTracer = (fiber: Fiber.Fiber<unknown, unknown>): Tracer.Tracer | undefined => {
  if (!fiber.getRef(References.TracerEnabled)) return undefined
  const tracer = fiber.getRef(Tracer.Tracer)
  return tracer === Tracer.nativeTracer ? undefined : tracer
}

/** Starts a span under the fiber's current span (or `parent`), or returns undefined when not tracing. */
export const startSpan = (
  fiber: Fiber.Fiber<unknown, unknown>,
  name: string,
  start: number,
  attributes: Record<string, string>,
  parent?: Tracer.AnySpan
): Tracer.Span | undefined => {
  const tracer = activeTracer(fiber)
  if (tracer === undefined) return undefined
  const parentSpan = parent !== undefined ? Option.some(parent) : Context.getOption(fiber.context, Tracer.ParentSpan)
  const span = tracer.span({
    name,
    parent: parentSpan,
    annotations: Context.empty(),
    links: [],
    startTime: spanTime(start),
    kind: "internal",
    root: false,
    sampled: Option.isNone(parentSpan) || parentSpan.value.sampled !== false
  })
  for (const key in attributes) span.attribute(key, attributes[key])
  return span
}

/**
 * The metric series of one hook or one operation: a counter per label (verdict or outcome),
 * made on first use, and one duration histogram.
 */
interface Series {
  readonly attributes: Readonly<Record<string, string>>
  readonly labelKey: string
  readonly counters: Map<string, Metric.Counter<number>>
  readonly counterName: string
  readonly duration: Metric.Histogram<number>
}

const makeSeries = (
  counterName: string,
  durationName: string,
  labelKey: string,
  attributes: Readonly<Record<string, string>>
): Series => ({
  attributes,
  labelKey,
  counters: new Map(),
  counterName,
  duration: Metric.histogram(durationName, { attributes, boundaries })
})

const counterOf = (series: Series, label: string): Metric.Counter<number> => {
  let counter = series.counters.get(label)
  if (counter === undefined) {
    counter = Metric.counter(series.counterName, { attributes: { ...series.attributes, [series.labelKey]: label } })
    series.counters.set(label, counter)
  }
  return counter
}

const hookSeries = new WeakMap<object, Series>()

const seriesOfHook = (hook: { readonly event: string; readonly id: string }): Series => {
  let series = hookSeries.get(hook)
  if (series === undefined) {
    series = makeSeries(MetricNames.hookRuns, MetricNames.hookDuration, "verdict", { event: hook.event, hook: hook.id })
    hookSeries.set(hook, series)
  }
  return series
}

const operationSeries = new Map<string, Series>()

const seriesOfOperation = (operation: string): Series => {
  let series = operationSeries.get(operation)
  if (series === undefined) {
    series = makeSeries(MetricNames.calls, MetricNames.callDuration, "outcome", { operation })
    operationSeries.set(operation, series)
  }
  return series
}

/** What a hook span names besides the hook. */
export interface SpanSubject {
  readonly serverId: string
  readonly name: string
  readonly callId: string
}

/** One hook run, as telemetry records it. */
export interface HookRecord {
  readonly fiber: Fiber.Fiber<unknown, unknown>
  /** The operation's span; the hook's span is its child. Undefined when not tracing. */
  readonly parent: Tracer.Span | undefined
  readonly hook: { readonly event: string; readonly id: string }
  /** The verdict's status, or the failure kind. */
  readonly verdict: string
  readonly subject: SpanSubject
  /** {@link now} readings. */
  readonly start: number
  readonly end: number
  readonly failed: boolean
  /** True when the hook answered through an Effect rather than at once. */
  readonly suspended: boolean
  /** True when the hook missed its deadline and was left running, supervised. */
  readonly detached: boolean
}

/**
 * Records one hook run: a span (child of the operation's span, when tracing) and the run counter;
 * the duration histogram only for hooks that suspended, since a synchronous hook's sub-microsecond
 * duration says nothing a histogram would (the receipt still has it).
 */
export const recordHook = (run: HookRecord): void => {
  const { fiber, hook, verdict, start, end } = run
  if (run.parent !== undefined) {
    const subject = run.subject
    const span = startSpan(fiber, "interlock.hook", start, {
      "interlock.event": hook.event,
      "interlock.hook_id": hook.id,
      "interlock.verdict": verdict,
      "interlock.server": subject.serverId,
      "interlock.tool": subject.name,
      "interlock.call_id": subject.callId
    }, run.parent)
    if (run.detached) span?.attribute("interlock.detached", true)
    span?.end(spanTime(end), run.failed ? failedExit(verdict) : OK_EXIT)
  }
  const series = seriesOfHook(hook)
  counterOf(series, verdict).updateUnsafe(1, fiber.context)
  if (run.suspended) series.duration.updateUnsafe(elapsedMs(start, end), fiber.context)
  if (run.detached) recordDetached(fiber, { event: hook.event, hook: hook.id })
}

/** Counts one detached fiber (a hook's, a policy decision's or a transport request's). */
export const recordDetached = (fiber: Fiber.Fiber<unknown, unknown>, attributes: Record<string, string>): void => {
  Metric.counter(MetricNames.detached, { attributes }).updateUnsafe(1, fiber.context)
}

/** One operation's end, as telemetry records it. */
export interface CallRecord {
  readonly fiber: Fiber.Fiber<unknown, unknown>
  /** The operation's span, ended here; undefined when not tracing. */
  readonly span: Tracer.Span | undefined
  /** callTool, listTools, readResource, getPrompt. */
  readonly operation: string
  readonly outcome: string
  /** {@link now} readings. */
  readonly start: number
  readonly end: number
}

/** Ends an operation's span with its outcome, and records the call metrics. */
export const recordCall = (call: CallRecord): void => {
  const { fiber, span, outcome } = call
  if (span !== undefined) {
    span.attribute("interlock.outcome", outcome)
    span.end(spanTime(call.end), SUCCESSFUL_OUTCOMES.has(outcome) ? OK_EXIT : failedExit(outcome))
  }
  const series = seriesOfOperation(call.operation)
  counterOf(series, outcome).updateUnsafe(1, fiber.context)
  series.duration.updateUnsafe(elapsedMs(call.start, call.end), fiber.context)
}
