/**
 * The agent's metric stream: one event per model request (llm), per tool call (tool) and per run
 * (run). It is observe-only: sinks get frozen events, a sink that throws is ignored, and nothing a
 * sink does can change the run. `Metrics.collector()` keeps the events and renders a Prometheus
 * text export. Events carry names, counts and durations; never prompts, arguments or results.
 */
import { Effect, PubSub, Stream } from "effect"

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

const escape = (value: string): string => value.replace(/\\/g, "\\\\").replace(/"/g, "\\\"").replace(/\n/g, "\\n")

const labels = (pairs: Record<string, string>): string =>
  `{${Object.entries(pairs).map(([key, value]) => `${key}="${escape(value)}"`).join(",")}}`

class Family {
  readonly samples = new Map<string, number>()
  readonly name: string
  readonly help: string
  readonly type: "counter" | "summary"
  constructor(name: string, help: string, type: "counter" | "summary") {
    this.name = name
    this.help = help
    this.type = type
  }
  add(suffix: string, pairs: Record<string, string>, value: number) {
    const key = `${this.name}${suffix}${labels(pairs)}`
    this.samples.set(key, (this.samples.get(key) ?? 0) + value)
  }
  /** One observation of a summary: its value joins _sum, and _count goes up by one. */
  observe(pairs: Record<string, string>, value: number) {
    this.add("_sum", pairs, value)
    this.add("_count", pairs, 1)
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} ${this.type}`]
    for (const [key, value] of this.samples) lines.push(`${key} ${value}`)
    return lines.join("\n")
  }
}

/** A sink that keeps every event and renders Prometheus text. */
export interface Collector {
  readonly sink: MetricsSink
  readonly events: ReadonlyArray<MetricEvent>
  /** The Prometheus text exposition of everything collected so far. */
  readonly prometheus: () => string
}

/** Makes a collector. Pass `collector.sink` as the agent's `metrics` option. */
export const collector = (): Collector => {
  const events: Array<MetricEvent> = []
  return { sink: (event) => void events.push(event), events, prometheus: () => toPrometheus(events) }
}

/** Renders events as Prometheus text (counters, and summaries of durations as _sum and _count). */
export const toPrometheus = (events: ReadonlyArray<MetricEvent>): string => {
  const llm = new Family("interlock_agent_llm_requests_total", "Model requests, by model and status.", "counter")
  const llmMs = new Family("interlock_agent_llm_duration_ms", "Model request time in ms, retries included.", "summary")
  const tokens = new Family("interlock_agent_tokens_total", "Tokens, by model and kind.", "counter")
  const tools = new Family("interlock_agent_tool_calls_total", "Tool calls, by tool and outcome.", "counter")
  const toolMs = new Family("interlock_agent_tool_duration_ms", "Tool call time in ms.", "summary")
  const runs = new Family("interlock_agent_runs_total", "Runs, by status.", "counter")
  const turns = new Family("interlock_agent_run_turns_total", "Model turns of finished runs.", "counter")
  for (const event of events) {
    switch (event.type) {
      case "llm":
        llm.add("", { model: event.model, status: event.status }, 1)
        llmMs.observe({ model: event.model }, event.durationMs)
        tokens.add("", { model: event.model, kind: "input" }, event.inputTokens)
        tokens.add("", { model: event.model, kind: "output" }, event.outputTokens)
        break
      case "tool":
        tools.add("", { tool: event.name, outcome: event.outcome }, 1)
        toolMs.observe({ tool: event.name }, event.durationMs)
        break
      case "run":
        runs.add("", { status: event.status }, 1)
        turns.add("", { model: event.model }, event.turns)
        break
    }
  }
  return [llm, llmMs, tokens, tools, toolMs, runs, turns].map((family) => family.render()).join("\n") + "\n"
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
