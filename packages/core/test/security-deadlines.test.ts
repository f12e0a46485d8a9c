/**
 * Issue 10, deadlines: a hook, a custom policy or a native tool that does not yield to
 * interruption cannot hold its caller past the deadline. The caller gets its answer at the
 * deadline; the stuck fiber is detached, stays supervised and is reported in the receipt and in
 * the metrics.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Metric, Schema, Scope } from "effect"
import { TestClock } from "effect/testing"
import {
  type HooksConfig,
  Interlock,
  MetricNames,
  NativeTool,
  Policy,
  ToolCalls,
  ToolTransport,
  Verdict
} from "../src/index.ts"
import { capturing, spansNamed, spanText } from "./capture.ts"
import { atDeadline } from "./deadline.ts"
import { client, recordingTransport, SECRET } from "./fixtures.ts"

/** An Effect hook that never answers and ignores interruption. */
const stuck = () => Effect.uninterruptible(Effect.never)

const detachedCount = (attributes: Record<string, string>) =>
  Effect.map(
    Metric.snapshot,
    (snapshot) =>
      snapshot.filter((m) =>
        m.id === MetricNames.detached && Object.entries(attributes).every(([k, v]) => m.attributes?.[k] === v)
      )
        .reduce((n, m) => n + Number((m.state as { count: number }).count), 0)
  )

/** Runs `body` against a client in a scope that is closed at the end (closing must not hang). */
const withClient = <A, E>(
  layer: Layer.Layer<ToolCalls, unknown>,
  body: (calls: ToolCalls["Service"]) => Effect.Effect<A, E>
) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(layer, scope)
    const result = yield* body(context.mapUnsafe.get(ToolCalls.key) as ToolCalls["Service"])
    yield* Scope.close(scope, Exit.void)
    return result
  })

const hooked = (hooks: HooksConfig) => client(hooks, { settings: { hookTimeout: 50 } })

describe("security: deadlines", () => {
  it.effect(
    "an uninterruptible pre-call hook fails the call at its deadline; nothing is sent; the run is " +
      "marked detached",
    () =>
      Effect.gen(function*() {
        const { layer, log } = hooked({ preToolCall: [{ match: "*", id: "stuck", run: stuck }] })
        const exit = yield* withClient(
          layer,
          (calls) => atDeadline(calls.callTool({ serverId: "srv", name: "echo", args: { a: "secret-arg" } }), 50)
        )
        assert.isTrue(Exit.isFailure(exit))
        const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
        const failure = error?._tag === "Fail" ? error.error : undefined
        assert.strictEqual(failure?._tag, "HookFailed")
        assert.strictEqual(failure?._tag === "HookFailed" ? failure.kind : undefined, "timeout")
        assert.deepStrictEqual(failure?.receipt?.hooks.map((run) => [run.id, run.failure, run.detached]), [[
          "stuck",
          "timeout",
          true
        ]])
        assert.isFalse(failure?.receipt?.sent)
        assert.deepStrictEqual(log.calls, [])
        assert.strictEqual(yield* detachedCount({ event: "preToolCall", hook: "stuck" }), 1)
      }).pipe(Effect.provide(Layer.succeed(Metric.MetricRegistry, new Map())))
  )

  it.effect("the detached hook and request are marked on their spans, which carry no arguments", () =>
    capturing((captured) =>
      Effect.gen(function*() {
        const wedged = NativeTool.make({
          name: "wedged",
          parameters: Schema.Struct({ a: Schema.String }),
          run: () => Effect.uninterruptible(Effect.never)
        })
        const layer = Interlock.layer({
          policy: Policy.allowAll,
          callTimeout: 100,
          hooks: {
            postToolCall: [{ match: "*", id: "stuck-post", run: stuck }],
            toolCallFailed: [{ match: "*", id: "stuck-failed", timeout: 50, run: stuck }]
          }
        }).pipe(Layer.provide(ToolTransport.fromTools([wedged])))
        yield* withClient(layer, (calls) =>
          atDeadline(calls.callTool({ serverId: "local", name: "wedged", args: { a: SECRET } }), 150))
        assert.deepStrictEqual(
          spansNamed(captured, "interlock.callTool").map((a) =>
            a["interlock.detached"]
          ),
          ["request"]
        )
        assert.deepStrictEqual(
          spansNamed(captured, "interlock.hook").map((a) => [a["interlock.hook_id"], a["interlock.detached"]]),
          [["stuck-failed", true]]
        )
        for (const span of captured.spans) assert.notInclude(spanText(span), SECRET)
        for (const log of captured.logs) assert.notInclude(log, SECRET)
      })
    ))

  it.effect("a hook whose uninterruptible work takes 2 s answers timeout at its 50 ms deadline", () =>
    Effect.gen(function*() {
      const { layer, log } = hooked({
        preToolCall: [{
          match: "*",
          id: "slow",
          run: () => Effect.uninterruptible(Effect.as(Effect.sleep("2 seconds"), Verdict.continue))
        }]
      })
      const exit = yield* withClient(
        layer,
        (calls) => atDeadline(calls.callTool({ serverId: "srv", name: "echo" }), 50)
      )
      assert.strictEqual(Exit.isFailure(exit) ? exit.cause.reasons[0]?._tag : undefined, "Fail")
      assert.deepStrictEqual(log.calls, [])
    }))

  it.effect("every event's hooks have hard deadlines", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<
        readonly [
          HooksConfig,
          (calls: ToolCalls["Service"]) => Effect.Effect<unknown, unknown>,
          (exit: Exit.Exit<unknown, unknown>) => void
        ]
      > = [
        [{ postToolCall: [{ match: "*", run: stuck }] }, (c) =>
          c.callTool({ serverId: "srv", name: "secret" }), (exit) => {
          // A failing post-hook withholds the result.
          assert.isTrue(Exit.isSuccess(exit))
          assert.notInclude(JSON.stringify(Exit.isSuccess(exit) ? exit.value : null), "SECRET")
        }],
        [{ toolCallFailed: [{ match: "*", run: stuck }] }, (c) =>
          c.callTool({ serverId: "srv", name: "fail" }), (exit) =>
          assert.isTrue(Exit.isFailure(exit))],
        [{ toolsListed: [{ match: "*", run: stuck }] }, (c) =>
          c.listTools("srv"), (exit) =>
          assert.isTrue(Exit.isFailure(exit))],
        [{ resourceRead: [{ match: "*", run: stuck }] }, (c) =>
          c.readResource("srv", "file:///etc/passwd"), (exit) =>
          assert.isTrue(Exit.isFailure(exit))],
        [{ promptGet: [{ match: "*", run: stuck }] }, (c) =>
          c.getPrompt("srv", "p", {}), (exit) =>
          assert.isTrue(Exit.isFailure(exit))]
      ]
      for (const [hooks, operation, check] of cases) {
        const { layer, log } = hooked(hooks)
        check(
          yield* withClient(layer, (calls) =>
            atDeadline(operation(calls), 50))
        )
        assert.deepStrictEqual(log.reads, [])
        assert.deepStrictEqual(log.prompts, [])
      }
    }))

  it.effect(
    "a native tool that ignores interruption times out at the call's deadline; the request is " +
      "marked detached",
    () =>
      Effect.gen(function*() {
        const wedged = NativeTool.make({
          name: "wedged",
          parameters: Schema.Struct({}),
          run: () => Effect.uninterruptible(Effect.never)
        })
        const layer = Interlock.layer({ policy: Policy.allowAll, callTimeout: 100 }).pipe(
          Layer.provide(ToolTransport.fromTools([wedged]))
        )
        const exit = yield* withClient(
          layer,
          (calls) => atDeadline(calls.callTool({ serverId: "local", name: "wedged" }), 100)
        )
        const reason = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
        const error = reason?._tag === "Fail" ? reason.error : undefined
        assert.strictEqual(error?._tag, "Timeout")
        assert.deepStrictEqual(error?.receipt?.detached, ["request"])
        assert.strictEqual(error?.receipt?.outcome, "failed")
        assert.strictEqual(yield* detachedCount({ operation: "callTool", step: "request" }), 1)
      }).pipe(Effect.provide(Layer.succeed(Metric.MetricRegistry, new Map())))
  )

  it.effect("a custom policy that ignores interruption denies at the policy deadline; nothing is sent", () =>
    Effect.gen(function*() {
      const transport = recordingTransport()
      const policy = Policy.make(() => Effect.uninterruptible(Effect.never))
      const layer = Interlock.layer({ policy, policyTimeout: 80 }).pipe(Layer.provide(transport.layer))
      const exit = yield* withClient(
        layer,
        (calls) => atDeadline(calls.callTool({ serverId: "srv", name: "echo" }), 80)
      )
      const reason = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
      const error = reason?._tag === "Fail" ? reason.error : undefined
      assert.strictEqual(error?._tag, "Denied")
      assert.deepStrictEqual(error?.receipt?.detached, ["policy"])
      assert.deepStrictEqual(transport.log.calls, [])
    }))

  it.effect("closing the client signals a detached hook: it stops when its uninterruptible work ends", () =>
    Effect.gen(function*() {
      let finished = 0
      const { layer } = hooked({
        preToolCall: [{
          match: "*",
          run: () =>
            Effect.uninterruptible(Effect.sleep("1 second")).pipe(Effect.andThen(Effect.sync(() => {
              finished++
              return Verdict.continue
            })))
        }]
      })
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(layer, scope)
      const calls = context.mapUnsafe.get(ToolCalls.key) as ToolCalls["Service"]
      const caller = yield* Effect.forkChild(calls.callTool({ serverId: "srv", name: "echo" }))
      yield* TestClock.adjust(50)
      assert.strictEqual((yield* Effect.flip(Fiber.join(caller)))._tag, "HookFailed")
      yield* Scope.close(scope, Exit.void)
      yield* TestClock.adjust("1 second")
      assert.strictEqual(finished, 0)
    }))

  it.live("in real time, an uninterruptible hook that never answers gives HookFailed timeout", () =>
    Effect.gen(function*() {
      const { layer, log } = hooked({ preToolCall: [{ match: "*", id: "stuck", run: stuck }] })
      const error = yield* withClient(layer, (calls) => Effect.flip(calls.callTool({ serverId: "srv", name: "echo" })))
      assert.strictEqual(error._tag, "HookFailed")
      assert.strictEqual(error._tag === "HookFailed" ? error.kind : undefined, "timeout")
      assert.deepStrictEqual(log.calls, [])
    }))
})
