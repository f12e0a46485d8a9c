import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Metric, Scope } from "effect"
import { TestClock } from "effect/testing"
import { ConfigError, Interlock, MetricNames, Policy, ToolCalls, ToolTransport, Verdict } from "../src/index.ts"
import { client, recordingTransport } from "./fixtures.ts"

const buildError = (layer: Layer.Layer<ToolCalls, unknown>) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(Effect.scoped(Layer.build(layer)))
    assert.isTrue(Exit.isFailure(exit))
    const reason = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
    assert.strictEqual(reason?._tag, "Fail")
    return (reason as { error: ConfigError }).error
  })

describe("Interlock.layer", () => {
  it.effect("rejects bad settings and bad hooks at build time with a ConfigError naming the path", () =>
    Effect.gen(function*() {
      const transport = recordingTransport().layer
      const cases: Array<[Interlock.Settings & { hooks?: object }, string]> = [
        [{ hookTimeout: 0 }, "hookTimeout"],
        [{ callTimeout: -1 }, "callTimeout"],
        [{ tools: { deny: ["srv/"] } }, "tools.deny[0]"],
        [{ hooks: { preToolCall: [{ match: "*", run: 1 }] } }, "preToolCall[0]"]
      ]
      for (const [settings, path] of cases) {
        const layer = Interlock.layer({ ...settings, policy: Policy.allowAll } as never) as Layer.Layer<
          ToolCalls,
          unknown,
          ToolTransport
        >
        const error = yield* buildError(layer.pipe(Layer.provide(transport)))
        assert.instanceOf(error, ConfigError)
        assert.strictEqual(error.path, path)
      }
    }))

  it.effect("closing the client interrupts hooks still running in its scope", () =>
    Effect.gen(function*() {
      const events: Array<string> = []
      const { layer } = client({
        preToolCall: [{
          match: "*",
          run: () => Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => events.push("interrupted"))))
        }]
      })
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(layer, scope)
      const calls = context.mapUnsafe.get(ToolCalls.key) as ToolCalls["Service"]
      const fiber = yield* Effect.forkDetach(calls.callTool({ serverId: "srv", name: "echo" }))
      yield* TestClock.adjust(1)
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(events, ["interrupted"])
      yield* Fiber.interrupt(fiber)
    }))

  it.effect("interrupting a call, or its deadline passing, interrupts the transport request", () =>
    Effect.gen(function*() {
      const interrupted: Array<string> = []
      const transport = Layer.succeed(ToolTransport, {
        callTool: (call) =>
          Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => interrupted.push(String(call.args.id))))),
        listTools: () => Effect.succeed([]),
        readResource: () => Effect.never,
        getPrompt: () => Effect.never,
        era: () => undefined
      })
      const layer = Interlock.layer({ policy: Policy.allowAll, callTimeout: "30 seconds" }).pipe(
        Layer.provide(transport)
      )
      yield* Effect.gen(function*() {
        const calls = yield* ToolCalls
        const first = yield* Effect.forkChild(calls.callTool({ serverId: "s", name: "t", args: { id: "interrupted" } }))
        yield* TestClock.adjust(1)
        yield* Fiber.interrupt(first)
        const second = yield* Effect.forkChild(calls.callTool({ serverId: "s", name: "t", args: { id: "timed-out" } }))
        yield* TestClock.adjust("30 seconds")
        const error = yield* Effect.flip(Fiber.join(second))
        assert.strictEqual(error._tag, "Timeout")
        assert.strictEqual(error.receipt?.sent, true)
      }).pipe(Effect.provide(layer))
      assert.deepStrictEqual(interrupted, ["interrupted", "timed-out"])
    }))

  it.effect("calls run concurrently while the hooks of one call run one at a time", () =>
    Effect.gen(function*() {
      let inFlight = 0
      let peak = 0
      const order: Array<string> = []
      const hook = (id: string) => (call: { args: { n?: number } }) =>
        Effect.gen(function*() {
          inFlight++
          peak = Math.max(peak, inFlight)
          order.push(`${id}${call.args.n}`)
          yield* Effect.sleep(10)
          inFlight--
          return Verdict.continue
        })
      const { layer, log } = client({ preToolCall: [{ match: "*", run: hook("a") }, { match: "*", run: hook("b") }] })
      const fiber = yield* Effect.forkChild(Effect.provide(
        Effect.flatMap(ToolCalls, (calls) =>
          Effect.all(
            [1, 2, 3].map((n) => calls.callTool({ serverId: "srv", name: "echo", args: { n } })),
            { concurrency: "unbounded" }
          )),
        layer
      ))
      yield* TestClock.adjust(10)
      yield* TestClock.adjust(10)
      yield* Fiber.join(fiber)
      assert.strictEqual(peak, 3)
      assert.strictEqual(log.calls.length, 3)
      for (const n of [1, 2, 3]) {
        assert.isBelow(order.indexOf(`a${n}`), order.indexOf(`b${n}`))
      }
    }))

  it.effect("invalid calls are refused with a ProtocolError naming the field, before any hook runs", () =>
    Effect.gen(function*() {
      let ran = 0
      const { layer, log } = client({
        preToolCall: [{
          match: "*",
          run: () => {
            ran++
            return Verdict.continue
          }
        }]
      })
      yield* Effect.gen(function*() {
        const calls = yield* ToolCalls
        for (
          const [input, detail] of [
            [{ serverId: "", name: "x" }, /serverId/],
            [{ serverId: "srv", name: 5 }, /name/],
            [{ serverId: "srv", name: "echo", args: [1] }, /args must be a JSON object/],
            [{ serverId: "srv", name: "echo", args: { f: () => 1 } }, /args/],
            [null, /object/]
          ] as const
        ) {
          const error = yield* Effect.flip(calls.callTool(input as never))
          assert.strictEqual(error._tag, "ProtocolError")
          assert.match(error.message, detail)
        }
      }).pipe(Effect.provide(layer))
      assert.strictEqual(ran, 0)
      assert.strictEqual(log.calls.length, 0)
    }))

  it.effect("records call and hook metrics by outcome and verdict", () =>
    Effect.gen(function*() {
      const { layer } = client({ preToolCall: [{ match: "srv/fail", id: "stop-fail", run: () => Verdict.deny("no") }] })
      yield* Effect.provide(
        Effect.flatMap(ToolCalls, (calls) =>
          Effect.all([
            Effect.result(calls.callTool({ serverId: "srv", name: "echo" })),
            Effect.result(calls.callTool({ serverId: "srv", name: "fail" }))
          ])),
        layer
      )
      const snapshot = yield* Metric.snapshot
      const count = (id: string, attributes: Record<string, string>) =>
        snapshot.filter((m) => m.id === id && Object.entries(attributes).every(([k, v]) => m.attributes?.[k] === v))
          .reduce((n, m) => n + Number((m.state as { count: number }).count), 0)
      assert.strictEqual(count(MetricNames.calls, { operation: "callTool", outcome: "ok" }), 1)
      assert.strictEqual(count(MetricNames.calls, { operation: "callTool", outcome: "denied" }), 1)
      assert.strictEqual(count(MetricNames.hookRuns, { hook: "stop-fail", verdict: "deny" }), 1)
    }).pipe(Effect.provide(Layer.succeed(Metric.MetricRegistry, new Map()))))
})
