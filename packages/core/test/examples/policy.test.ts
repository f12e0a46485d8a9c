// An app's own policy and hook, tested with @effect/vitest and @interlock/core/testing. This file is
// the example in packages/core/README.md; it imports the packages by name, as an app does.
import { assert, describe, it } from "@effect/vitest"
import { Denied, type HooksConfig, Interlock, NativeTool, Policy, ToolCalls, Verdict } from "@interlock/core"
import { Arbitraries, RecordingTransport, ScriptedApprover } from "@interlock/core/testing"
import { Effect, Layer, Schema } from "effect"

// The app: file tools on server "fs", a policy that denies writes and asks before deleting, and a
// hook that drops a `token` argument before a call leaves the process.
const tools = ["read_file", "write_file", "delete_file"].map((name) =>
  NativeTool.make({ name, parameters: Schema.Struct({ path: Schema.String }), run: ({ path }) => `${name} ${path}` })
)
const policy = Policy.rules({
  rules: [
    { id: "no-writes", match: "fs/write_file", decision: "deny", reason: "read-only" },
    { id: "ask-delete", match: "fs/delete_file", decision: "ask", reason: "deleting needs a person" },
    { id: "reads", match: "fs/*", decision: "allow" }
  ]
})
const hooks = {
  preToolCall: [{
    match: "*",
    id: "drop-token",
    run: (call) => {
      const { token, ...rest } = call.args
      return token === undefined ? Verdict.continue : Verdict.rewrite({ args: rest })
    }
  }]
} satisfies HooksConfig

/** The app's pipeline over a recording transport, with a scripted approver (default: none answers). */
const app = (recording = RecordingTransport.make(tools, { serverId: "fs" }), approver = ScriptedApprover.make([])) => ({
  recording,
  approver,
  layer: Interlock.layer({ hooks, policy, approvals: approver.layer }).pipe(Layer.provide(recording.layer))
})

describe("the app's policy", () => {
  it.effect.prop(
    "denies a write however the tool name is spelled, and the call never reaches a server",
    [Arbitraries.callInput({ serverId: "fs", name: Arbitraries.looseVariant("write_file") })],
    ([input]) => {
      const { recording, layer } = app()
      return Effect.gen(function*() {
        const calls = yield* ToolCalls
        const error = yield* Effect.flip(calls.callTool(input))
        assert.instanceOf(error, Denied)
        assert.strictEqual(error.receipt?.policy?.rule, "no-writes")
        assert.deepStrictEqual(recording.calls, [])
      }).pipe(Effect.provide(layer))
    }
  )

  it.effect("drops the token before the call reaches the server", () => {
    const { recording, layer } = app()
    return Effect.gen(function*() {
      const calls = yield* ToolCalls
      const result = yield* calls.callTool({
        serverId: "fs",
        name: "read_file",
        args: { path: "/notes.txt", token: "sk-123" }
      })
      assert.strictEqual(result.text, "read_file /notes.txt")
      assert.deepStrictEqual(recording.calls.map((call) => call.args), [{ path: "/notes.txt" }])
    }).pipe(Effect.provide(layer))
  })

  it.effect("asks a person before deleting, and a refusal stops the call", () => {
    const { recording, approver, layer } = app(
      undefined,
      ScriptedApprover.make([{ decision: "deny", reason: "not today" }])
    )
    return Effect.gen(function*() {
      const calls = yield* ToolCalls
      const error = yield* Effect.flip(
        calls.callTool({ serverId: "fs", name: "delete_file", args: { path: "/notes.txt" } })
      )
      assert.strictEqual(error._tag, "Denied")
      assert.strictEqual(error.message, "approval denied: not today")
      assert.deepStrictEqual(approver.asked.map((ask) => [ask.rule, ask.reason]), [[
        "ask-delete",
        "deleting needs a person"
      ]])
      assert.deepStrictEqual(recording.calls, [])
    }).pipe(Effect.provide(layer))
  })
})
