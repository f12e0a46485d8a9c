/**
 * One compiled hook run on its own (`SingleHook`): selected by its matcher, its verdict checked against its event
 * and kind (a rename is refused), its failures settled as a chain settles them, its deadline on the TestClock.
 */
import { assert, describe, it } from "@effect/vitest"
import { HookContext, Hooks, type HooksConfig, SingleHook, ToolCall, ToolResult, Verdict } from "@interlock/core"
import { Context, Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"

const CONFIG: HooksConfig = {
  preToolCall: [
    { match: "fs/delete", id: "no-delete", kind: "guard", run: () => Verdict.deny("no deleting") },
    { match: "*", id: "rename", kind: "transform", run: () => Verdict.rewrite({ name: "other", args: {} }) },
    {
      match: "*",
      id: "shout",
      kind: "transform",
      run: (call) => Verdict.rewrite({ args: { ...call.args, loud: true } })
    },
    { match: "*", id: "throws", run: () => Promise.reject(new Error("SECRET-1")) },
    { match: "*", id: "hangs", timeout: 50, run: () => Effect.never },
    { match: "*", id: "guard-rewrites", kind: "guard", run: () => Verdict.rewrite({ args: {} }) }
  ],
  postToolCall: [{
    match: "*",
    id: "replace",
    run: () => Verdict.replace({ content: [{ type: "text", text: "new" }] })
  }],
  resourceRead: [{ match: "*", id: "junk", run: () => ({ _tag: "Allow" }) as never }]
}

const CTX = new HookContext({ client: "test", serverId: "fs", assigns: {} })
const call = (name: string) => new ToolCall({ serverId: "fs", name, args: { path: "/a" }, callId: "c1" })

const withRunner = <A>(
  use: (run: (id: string, input: SingleHook.Input) => Effect.Effect<unknown>) => Effect.Effect<A>
) =>
  Effect.scoped(Effect.gen(function*() {
    const hooks = Context.get(yield* Layer.build(Hooks.layer(CONFIG)), Hooks)
    const runner = yield* SingleHook.make(hooks, { hookTimeoutMs: 1_000 })
    const byId = (id: string) => Object.values(hooks.byEvent).flat().find((hook) => hook.id === id)!
    return yield* use((id, input) =>
      Effect.map(runner.run(byId(id), input, CTX), (outcome) =>
        outcome._tag === "Answered" && outcome.verdict._tag === "Rewrite"
          ? { rewrite: outcome.verdict.call.args }
          : outcome._tag === "Answered" && outcome.verdict._tag === "Replace"
          ? { replace: outcome.verdict.result.text }
          : outcome)
    )
  }))

describe("SingleHook", () => {
  it.effect("runs one hook as its chain would: matcher, event and kind, failures", () =>
    withRunner((run) =>
      Effect.gen(function*() {
        const pre = (name: string) => ({ event: "preToolCall" as const, call: call(name) })
        assert.deepStrictEqual(yield* run("no-delete", pre("delete")), {
          _tag: "Answered",
          verdict: { _tag: "Deny", reason: "no deleting" }
        })
        assert.deepStrictEqual(yield* run("no-delete", pre("read")), { _tag: "Skipped" })
        assert.deepStrictEqual(yield* run("shout", pre("read")), { rewrite: { path: "/a", loud: true } })
        assert.deepStrictEqual(yield* run("rename", pre("read")), { _tag: "Failed", kind: "bad_return" })
        assert.deepStrictEqual(yield* run("guard-rewrites", pre("read")), { _tag: "Failed", kind: "bad_return" })
        assert.deepStrictEqual(yield* run("throws", pre("read")), { _tag: "Failed", kind: "raise" })
        assert.deepStrictEqual(
          yield* run("replace", { event: "postToolCall", call: call("read"), result: ToolResult.text("old") }),
          { replace: "new" }
        )
        assert.deepStrictEqual(yield* run("junk", { event: "resourceRead", serverId: "fs", uri: "file:///a" }), {
          _tag: "Failed",
          kind: "bad_return"
        })
      })
    ))

  it.effect("a hook past its own deadline times out", () =>
    withRunner((run) =>
      Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(run("hangs", { event: "preToolCall", call: call("read") }))
        yield* TestClock.adjust(60)
        assert.deepStrictEqual(yield* Fiber.join(fiber), { _tag: "Failed", kind: "timeout" })
      })
    ))

  it.effect("a hook run on another event's input is a defect, not a verdict", () =>
    withRunner((run) =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(run("no-delete", { event: "resourceRead", serverId: "fs", uri: "x" }))
        assert.isTrue(exit._tag === "Failure")
      })
    ))
})
