/** The agent's Prometheus text, rendered by Effect's PrometheusMetrics over a registry of the collector's own. */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { PrometheusMetrics } from "effect/observability"
import { Metrics } from "../src/index.ts"

const llm = (model: string, status: "ok" | "error", durationMs: number): Metrics.LlmEvent => ({
  type: "llm",
  model,
  turn: 1,
  status,
  attempts: 1,
  durationMs,
  inputTokens: 3,
  outputTokens: 2,
  totalTokens: 5
})
const tool = (name: string, outcome: string, durationMs: number): Metrics.ToolEvent => ({
  type: "tool",
  name,
  serverId: "s",
  callId: "c",
  turn: 1,
  isError: false,
  outcome,
  durationMs
})

describe("Metrics.collector's Prometheus text", () => {
  it(
    "counters and duration summaries (_sum, _count) with HELP and TYPE, labels in the agent's order " +
      "and escaped",
    () => {
      const collector = Metrics.collector()
      for (const event of [llm("gpt-x", "ok", 10), llm("gpt-x", "ok", 2.5), tool("say \"hi\"\n", "ok", 4)]) {
        collector.sink(event)
      }
      const text = collector.prometheus()
      const expected = [
        "# HELP interlock_agent_llm_requests_total Model requests, by model and status.\n# TYPE " +
        "interlock_agent_llm_requests_total counter\n",
        "interlock_agent_llm_requests_total{model=\"gpt-x\",status=\"ok\"} 2\n",
        "# TYPE interlock_agent_llm_duration_ms summary\ninterlock_agent_llm_duration_ms_sum{model=\"gpt-x\"} " +
        "12.5\ninterlock_agent_llm_duration_ms_count{model=\"gpt-x\"} 2\n",
        "interlock_agent_tokens_total{model=\"gpt-x\",kind=\"output\"} 4\n",
        "interlock_agent_tool_calls_total{tool=\"say \\\"hi\\\"\\n\",outcome=\"ok\"} 1\n"
      ]
      for (const part of expected) assert.include(text, part)
      // Families without a sample are left out; nothing collected renders nothing.
      assert.notInclude(text, "interlock_agent_runs_total")
      assert.strictEqual(Metrics.collector().prometheus(), "")
    }
  )

  it("a collector's metrics are its own: not in the process's registry, nor in another collector's", () =>
    Effect.runSync(Effect.gen(function*() {
      const first = Metrics.collector()
      first.sink(llm("m", "error", 1))
      const second = Metrics.collector()
      assert.notInclude(second.prometheus(), "interlock_agent")
      assert.notInclude(PrometheusMetrics.formatUnsafe(yield* Effect.context<never>()), "interlock_agent")
      assert.include(first.prometheus(), "interlock_agent_llm_requests_total{model=\"m\",status=\"error\"} 1")
    })))

  it.effect.prop(
    "the collector's text is toPrometheus of its events, and each counter sums its events",
    [Schema.Array(
      Schema.Struct({
        model: Schema.Literals(["a", "b"]),
        ok: Schema.Boolean,
        ms: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1000 }))
      })
    )],
    ([draws]) =>
      Effect.sync(() => {
        const collector = Metrics.collector()
        for (const draw of draws) collector.sink(llm(draw.model, draw.ok ? "ok" : "error", draw.ms))
        const text = collector.prometheus()
        assert.strictEqual(text, Metrics.toPrometheus(collector.events))
        for (const model of ["a", "b"] as const) {
          const mine = draws.filter((draw) => draw.model === model)
          const line = `interlock_agent_llm_duration_ms_count{model="${model}"} ${mine.length}\n`
          if (mine.length === 0) assert.notInclude(text, line)
          else assert.include(text, line)
        }
      })
  )
})
