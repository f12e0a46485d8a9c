/**
 * The agent's metric stream: one event per model request (llm), tool call (tool) and run (run). Observe-only:
 * sinks get frozen events, a sink that throws is ignored. `Metrics.collector()` keeps the events and counts them
 * in Effect's metrics, which PrometheusMetrics renders. Events carry names, counts and durations; never prompts,
 * arguments or results.
 */
import { Context, Effect, Metric, PubSub, Stream } from "effect"
import { PrometheusMetrics } from "effect/observability"

/** One model request (after its retries). */
export interface LlmEvent {
  readonly type: "llm"
  readonly model: string
  readonly turn: number
  readonly status: "ok" | "error"
  readonly attempts: number
  readonly durationMs: number
  readonly inputTokens: number
  readonly outputTokens: number
  readonly totalTokens: number
}

/** One tool call. `outcome` is the receipt's outcome, or not_found, invalid_args, pending. */
export interface ToolEvent {
  readonly type: "tool"
  readonly name: string
  readonly serverId: string
  readonly callId: string
  readonly turn: number
  readonly isError: boolean
  readonly outcome: string
  readonly durationMs: number
}

/** One run, when it ends. */
export interface RunEvent {
  readonly type: "run"
  readonly model: string
  readonly status: string
  readonly turns: number
  readonly toolCalls: number
  readonly durationMs: number
  readonly inputTokens: number
  readonly outputTokens: number
  readonly totalTokens: number
}

/** Any metric event. */
export type MetricEvent = LlmEvent | ToolEvent | RunEvent

/** Where metric events go. */
export type MetricsSink = (event: MetricEvent) => void

/** Sends an event to a sink, frozen, ignoring anything the sink throws. */
export const emit = (sink: MetricsSink | undefined, event: MetricEvent): void => {
  if (sink === undefined) return
  try {
    sink(Object.freeze(event))
  } catch {
    // Observe-only: a failing sink changes nothing.
  }
}

// The metric families, in Effect's metric model; durations are summaries without quantiles (_sum and _count).
const counter = (name: string, description: string) => Metric.counter(name, { description })
const durations = (name: string, description: string) =>
  Metric.summary(name, { description, maxAge: "1 minute", maxSize: 0, quantiles: [] })

const FAMILIES = {
  llm: counter("interlock_agent_llm_requests_total", "Model requests, by model and status."),
  llmMs: durations("interlock_agent_llm_duration_ms", "Model request time in ms, retries included."),
  tokens: counter("interlock_agent_tokens_total", "Tokens, by model and kind."),
  tools: counter("interlock_agent_tool_calls_total", "Tool calls, by tool and outcome."),
  toolMs: durations("interlock_agent_tool_duration_ms", "Tool call time in ms."),
  runs: counter("interlock_agent_runs_total", "Runs, by status."),
  turns: counter("interlock_agent_run_turns_total", "Model turns of finished runs.")
}

/**
 * A metric registry of its own (not the process's), as a context Effect's metrics update and PrometheusMetrics reads.
 */
const registryContext = (): Context.Context<never> => Context.make(Metric.MetricRegistry, new Map())

const add = (
  metric: Metric.Metric<number, unknown>,
  labels: Record<string, string>,
  value: number,
  context: Context.Context<never>
) => Metric.withAttributes(metric, labels).updateUnsafe(value, context)

/** Counts one event in the registry of `context`. */
const count = (event: MetricEvent, context: Context.Context<never>): void => {
  switch (event.type) {
    case "llm":
      add(FAMILIES.llm, { model: event.model, status: event.status }, 1, context)
      add(FAMILIES.llmMs, { model: event.model }, event.durationMs, context)
      add(FAMILIES.tokens, { model: event.model, kind: "input" }, event.inputTokens, context)
      add(FAMILIES.tokens, { model: event.model, kind: "output" }, event.outputTokens, context)
      break
    case "tool":
      add(FAMILIES.tools, { tool: event.name, outcome: event.outcome }, 1, context)
      add(FAMILIES.toolMs, { tool: event.name }, event.durationMs, context)
      break
    case "run":
      add(FAMILIES.runs, { status: event.status }, 1, context)
      add(FAMILIES.turns, { model: event.model }, event.turns, context)
      break
  }
}

/** A sink that keeps every event and renders Prometheus text. */
export interface Collector {
  readonly sink: MetricsSink
  readonly events: ReadonlyArray<MetricEvent>
  /** The Prometheus text exposition of everything collected so far. */
  readonly prometheus: () => string
}

/** Makes a collector with a metric registry of its own. Pass `collector.sink` as the agent's `metrics` option. */
export const collector = (): Collector => {
  const events: Array<MetricEvent> = []
  const context = registryContext()
  return {
    sink: (event) => {
      events.push(event)
      count(event, context)
    },
    events,
    prometheus: () => PrometheusMetrics.formatUnsafe(context)
  }
}

/**
 * Renders events as Prometheus text through Effect's metrics (counters, and summaries of durations
 * as _sum and _count). A family appears once it has a sample, in the order of its first.
 */
export const toPrometheus = (events: ReadonlyArray<MetricEvent>): string => {
  const context = registryContext()
  for (const event of events) count(event, context)
  return PrometheusMetrics.formatUnsafe(context)
}

/** A sink whose events are published to subscribers as an Effect Stream. */
export interface Published {
  readonly sink: MetricsSink
  /** Every event published after the stream starts (each subscriber gets its own copy). */
  readonly stream: Stream.Stream<MetricEvent>
}

/** Makes a sink that publishes to a PubSub; the events arrive on `stream`. */
export const publisher: Effect.Effect<Published> = Effect.map(PubSub.unbounded<MetricEvent>(), (pubsub) => ({
  sink: (event) => void PubSub.publishUnsafe(pubsub, event),
  stream: Stream.fromPubSub(pubsub)
}))
