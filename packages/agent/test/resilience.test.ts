/** Retries, onError, deadlines, interruption and the metric stream, against a fake server over real HTTP. */
import { assert, describe, it } from "@effect/vitest"
import { NativeTool } from "@interlock/core"
import { Deferred, Effect, Fiber, Schema, Stream } from "effect"
import { TestClock } from "effect/testing"
import { Metrics } from "../src/index.ts"
import { realPause, until, withClock } from "./support/clock.ts"
import { fake, runOn, text, toolCalls, turns } from "./support/FakeLlm.ts"
import { add } from "./support/tools.ts"

const failing = (status: number, headers?: Record<string, string>) => ({
  status,
  headers,
  json: { error: { message: "secret prompt echoed here" } }
})

describe("resilience", () => {
  it.effect("a 500 then a 200 recovers", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(failing(500), text("recovered")))
      const result = yield* withClock(runOn(server, "hi"))
      assert.strictEqual(result.status, "done")
      assert.strictEqual(result.text, "recovered")
      assert.strictEqual(server.requests.length, 2)
    }))

  it.effect("a 400 fails at once, with the status in the error and nothing of the body", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(failing(400)))
      const result = yield* withClock(runOn(server, "hi"))
      assert.strictEqual(result.status, "error")
      assert.strictEqual(server.requests.length, 1)
      const error = result.error!
      assert.strictEqual(error._tag, "ModelFailed")
      assert.strictEqual(error._tag === "ModelFailed" && error.status, 400)
      assert.include(error.message, "400")
      assert.notInclude(error.message, "secret")
    }))

  it.effect("onError fail on a 429 makes 1 request", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(failing(429)))
      const infos: Array<unknown> = []
      const result = yield* withClock(runOn(server, "hi", {
        onError: (info) => {
          infos.push(info)
          return "fail"
        }
      }))
      assert.strictEqual(result.status, "error")
      assert.strictEqual(server.requests.length, 1)
      assert.deepStrictEqual(infos, [{
        attempt: 1,
        status: 429,
        reason: "RateLimitError",
        retryable: true,
        retryAfterMs: undefined
      }])
    }))

  it.effect("onError retry on a 400 with retries 2 makes 3 requests", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(failing(400)))
      const result = yield* withClock(runOn(server, "hi", { retry: { retries: 2 }, onError: () => "retry" }))
      assert.strictEqual(result.status, "error")
      assert.strictEqual(server.requests.length, 3)
      assert.strictEqual(result.error?._tag === "ModelFailed" && result.error.attempts, 3)
    }))

  it.effect("a 429 waits for its Retry-After (seconds) before the next request", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(failing(429, { "retry-after": "30" }), text("later")))
      const fiber = yield* Effect.forkChild(runOn(server, "hi"))
      assert.isTrue(yield* until(() => server.requests.length === 1))
      yield* realPause(30)
      yield* TestClock.adjust("29 seconds")
      yield* realPause(50)
      assert.strictEqual(server.requests.length, 1)
      yield* TestClock.adjust("2 seconds")
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.text, "later")
      assert.strictEqual(server.requests.length, 2)
    }))

  it.effect("a deadline of 0 gives status timeout", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(text("never")))
      const result = yield* runOn(server, "hi", { deadline: 0 })
      assert.strictEqual(result.status, "timeout")
      assert.deepStrictEqual(result.limit, { kind: "deadline", value: 0 })
      assert.strictEqual(server.requests.length, 0)
    }))

  it.effect("a run deadline cancels a hanging model request and gives status timeout", () =>
    Effect.gen(function*() {
      const server = yield* fake(() => ({ hang: true }))
      const fiber = yield* Effect.forkChild(runOn(server, "hi", { deadline: "10 seconds" }))
      assert.isTrue(yield* until(() => server.requests.length === 1))
      yield* TestClock.adjust("10 seconds")
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.status, "timeout")
      assert.isTrue(yield* until(() => server.abandoned.count === 1))
    }))

  it.effect("interrupting the run cancels the model request in flight", () =>
    Effect.gen(function*() {
      const server = yield* fake(() => ({ hang: true }))
      const fiber = yield* Effect.forkChild(runOn(server, "hi"))
      assert.isTrue(yield* until(() => server.requests.length === 1))
      yield* Fiber.interrupt(fiber)
      assert.isTrue(yield* until(() => server.abandoned.count === 1))
    }))

  it.effect("interrupting the run interrupts the tools in flight; an aborted signal gives status interrupted", () =>
    Effect.gen(function*() {
      let cancelled = 0
      // A tool that says it started, then waits forever and counts its cancellation.
      const stuckTool = (started: Deferred.Deferred<void>) =>
        NativeTool.make({
          name: "stuck",
          parameters: Schema.Struct({}),
          run: () =>
            Deferred.succeed(started, undefined).pipe(
              Effect.andThen(Effect.never),
              Effect.onInterrupt(() => Effect.sync(() => void cancelled++))
            )
        })
      const started = yield* Deferred.make<void>()
      const stuck = stuckTool(started)
      const server = yield* fake(turns(toolCalls([{ id: "c1", name: "stuck", args: {} }]), text("unreachable")))
      const controller = new AbortController()
      const fiber = yield* Effect.forkChild(runOn(server, "hi", { tools: [stuck], signal: controller.signal }))
      yield* Deferred.await(started)
      controller.abort()
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.status, "interrupted")
      assert.strictEqual(cancelled, 1)
      assert.strictEqual(result.turns, 1)
      // Fiber interruption: the same tool, cancelled by interrupting the run's fiber.
      const again = yield* Deferred.make<void>()
      const stuck2 = stuckTool(again)
      const server2 = yield* fake(turns(toolCalls([{ id: "c1", name: "stuck", args: {} }])))
      const fiber2 = yield* Effect.forkChild(runOn(server2, "hi", { tools: [stuck2] }))
      yield* Deferred.await(again)
      yield* Fiber.interrupt(fiber2)
      assert.strictEqual(cancelled, 2)
    }))

  it.effect("the metrics of one run: 2 llm, 1 tool and 1 run event, turns 2, toolCalls 1, token totals", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(
        toolCalls([{ id: "c1", name: "add", args: { a: 1, b: 2 } }], { prompt_tokens: 4, completion_tokens: 2 }),
        text("3", { prompt_tokens: 3, completion_tokens: 2 })
      ))
      const collector = Metrics.collector()
      const result = yield* runOn(server, "1+2", { tools: [add], metrics: collector.sink })
      const byType = (type: string) => collector.events.filter((e) => e.type === type)
      assert.strictEqual(byType("llm").length, 2)
      assert.strictEqual(byType("tool").length, 1)
      assert.strictEqual(byType("run").length, 1)
      const run = byType("run")[0] as Metrics.RunEvent
      assert.deepStrictEqual(
        [run.turns, run.toolCalls, run.inputTokens, run.outputTokens, run.totalTokens, run.status],
        [2, 1, 7, 4, 11, "done"]
      )
      assert.deepStrictEqual([result.usage.inputTokens, result.usage.outputTokens, result.usage.totalTokens], [
        7,
        4,
        11
      ])
      const tool = byType("tool")[0] as Metrics.ToolEvent
      assert.deepStrictEqual([tool.name, tool.outcome, tool.isError], ["add", "ok", false])
      const exported = collector.prometheus()
      assert.include(exported, "# TYPE interlock_agent_llm_requests_total counter")
      assert.include(exported, "interlock_agent_llm_requests_total{model=\"gpt-x\",status=\"ok\"} 2")
      assert.include(exported, "interlock_agent_tokens_total{model=\"gpt-x\",kind=\"input\"} 7")
      assert.include(exported, "interlock_agent_tool_calls_total{tool=\"add\",outcome=\"ok\"} 1")
      assert.include(exported, "interlock_agent_runs_total{status=\"done\"} 1")
    }))

  it.effect("the metrics as an Effect Stream", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(toolCalls([{ id: "c1", name: "add", args: { a: 1, b: 2 } }]), text("3")))
      const published = yield* Metrics.publisher
      const collected = yield* Effect.forkChild(published.stream.pipe(Stream.take(4), Stream.runCollect))
      yield* Effect.yieldNow
      yield* runOn(server, "1+2", { tools: [add], metrics: published.sink })
      const events = yield* Fiber.join(collected)
      assert.deepStrictEqual(Array.from(events, (e) => e.type), ["llm", "tool", "llm", "run"])
    }))

  it.effect("a metrics sink that throws changes nothing", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(text("fine")))
      const result = yield* runOn(server, "hi", {
        metrics: () => {
          throw new Error("sink broke")
        }
      })
      assert.strictEqual(result.status, "done")
      assert.strictEqual(result.text, "fine")
    }))
})
