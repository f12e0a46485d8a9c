/**
 * Cancelling a streamed run mid-stream (the consumer stops taking, an AbortSignal, a fiber
 * interrupt) closes the model request, which the fake server sees as a socket closed before the
 * answer ended; the run is cancelled, with a record and a receipt for every tool call that started.
 */
import { assert, describe, it } from "@effect/vitest"
import { NativeTool, Policy } from "@interlock/core"
import { Deferred, Effect, Fiber, Schema, Stream } from "effect"
import { Agent, Metrics } from "../src/index.ts"
import { until } from "./support/clock.ts"
import { fake, openAi, turns } from "./support/FakeLlm.ts"
import { openAiFrames } from "./support/SseScripts.ts"
import { only, resultOf } from "./support/StreamRun.ts"
import { add } from "./support/tools.ts"

/** A stream that writes two deltas and then nothing more, keeping the response open. */
const stalled = { sse: openAiFrames(["one ", "two "], [], { done: false }).slice(0, 3), hang: true as const }

const streamOf = (server: Parameters<typeof openAi>[0], options: Record<string, unknown> = {}) =>
  Agent.stream("hi", { model: openAi(server), policy: Policy.allowAll, ...options })

describe("cancelling a streamed run", () => {
  it.live("the consumer stops taking: the request is closed, the run is cancelled", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(stalled))
      const collector = Metrics.collector()
      const taken = yield* Stream.runCollect(
        streamOf(server, { metrics: collector.sink }).pipe(Stream.takeUntil((e) => e._tag === "TextDelta"))
      )
      assert.deepStrictEqual(Array.from(taken, (e) => e._tag), ["TurnStart", "TextDelta"])
      assert.isTrue(yield* until(() => server.abandoned.count === 1), "the server saw the socket close")
      const runs = collector.events.filter((e) => e.type === "run")
      assert.deepStrictEqual(runs.map((e) => (e as Metrics.RunEvent).status), ["cancelled"])
    }))

  it.live("an AbortSignal: the request is closed and the stream ends with a cancelled RunResult", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(stalled))
      const controller = new AbortController()
      const fiber = yield* Effect.forkChild(
        Stream.runCollect(
          streamOf(server, { signal: controller.signal }).pipe(
            Stream.tap((e) => Effect.sync(() => e._tag === "TextDelta" && e.text === "two " && controller.abort()))
          )
        )
      )
      const events = Array.from(yield* Fiber.join(fiber))
      assert.deepStrictEqual(only(events, "TextDelta").map((e) => e.text), ["one ", "two "])
      const result = resultOf(events)
      assert.deepStrictEqual([result.status, result.text], ["cancelled", ""])
      assert.isTrue(yield* until(() => server.abandoned.count === 1), "the server saw the socket close")
    }))

  it.live("interrupting the consuming fiber closes the request", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(stalled))
      const fiber = yield* Effect.forkChild(Stream.runDrain(streamOf(server)))
      assert.isTrue(yield* until(() => server.requests.length === 1))
      yield* Effect.sleep("20 millis")
      yield* Fiber.interrupt(fiber)
      assert.isTrue(yield* until(() => server.abandoned.count === 1), "the server saw the socket close")
    }))

  it.live(
    "every tool call that started has a record with a receipt: the finished one core's, the cut one " +
      "the agent's",
    () =>
      Effect.gen(function*() {
        const started = yield* Deferred.make<void>()
        const stuck = NativeTool.make({
          name: "stuck",
          parameters: Schema.Struct({}),
          run: () => Deferred.succeed(started, undefined).pipe(Effect.andThen(Effect.never))
        })
        const server = yield* fake(turns({
          sse: openAiFrames([], [
            { id: "c_add", name: "add", pieces: ["{\"a\":1,\"b\":2}"] },
            { id: "c_stuck", name: "stuck", pieces: ["{}"] }
          ])
        }))
        const controller = new AbortController()
        const collector = Metrics.collector()
        const fiber = yield* Effect.forkChild(
          Stream.runCollect(
            streamOf(server, { tools: [add, stuck], signal: controller.signal, metrics: collector.sink })
          )
        )
        yield* Deferred.await(started)
        yield* Effect.sleep("10 millis")
        controller.abort()
        const events = Array.from(yield* Fiber.join(fiber))
        const result = resultOf(events)
        assert.strictEqual(result.status, "cancelled")
        const byId = new Map(result.toolCalls.map((c) => [c.id, c]))
        assert.deepStrictEqual([...byId.keys()].sort(), ["c_add", "c_stuck"])
        const done = byId.get("c_add")!
        assert.deepStrictEqual([done.output, done.receipt?.outcome, done.receipt?.policy?.decision, done.cancelled], [
          "3",
          "ok",
          "allow",
          undefined
        ])
        const cut = byId.get("c_stuck")!
        assert.deepStrictEqual(
          [cut.isError, cut.cancelled, cut.receipt?.outcome, cut.receipt?.sent, cut.receipt?.callId, cut.receipt?.name],
          [true, true, "failed", true, "c_stuck", "stuck"]
        )
        const tools = collector.events.filter((e): e is Metrics.ToolEvent => e.type === "tool")
        assert.sameDeepMembers(tools.map((e) => [e.callId, e.outcome]), [["c_add", "ok"], ["c_stuck", "cancelled"]])
      })
  )
})
