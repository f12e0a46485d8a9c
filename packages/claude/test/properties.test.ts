/** Properties over large input spaces: any hook return, any settings object, any stdin. */
import { assert, describe, it } from "@effect/vitest"
import { Hooks, JsonText, Policy } from "@interlock/core"
import { Effect, Exit, Layer, Schema } from "effect"
import { AuditSink, Bridge, CLAUDE_EVENTS, coerce, compileSettings, decodeOutput, toWire } from "../src/index.ts"

const anyEvent = Schema.Literals(CLAUDE_EVENTS)

describe("properties", () => {
  it.effect.prop("any JSON a hook returns becomes a valid output of its event, or the empty one with a warning", [
    Schema.Json,
    anyEvent
  ], ([value, event]) =>
    Effect.sync(() => {
      const { output, warnings } = coerce(value, event)
      const wire = toWire(output)
      assert.isDefined(decodeOutput(JsonText.parse(JSON.stringify(wire)), event), JSON.stringify(wire))
      if (warnings.length > 0 && Object.keys(wire).length > 0) {
        // Only dropped options warn and still answer; everything else warns with the empty output.
        assert.isTrue(warnings.every((w) => w.includes("was dropped")))
      }
    }))

  it.effect.prop(
    "any settings object loads or fails with a SettingsError, never a throw",
    [Schema.Json],
    ([value]) =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(compileSettings({ hooks: value }))
        if (Exit.isFailure(exit)) {
          const reason = exit.cause.reasons[0]
          assert.strictEqual(
            reason?._tag === "Fail" ? (reason.error as { _tag: string })._tag : "defect",
            "SettingsError"
          )
        }
      })
  )

  const env = Layer.mergeAll(Hooks.empty, Policy.allowAll, AuditSink.none)
  it.effect.prop("any stdin gets exit 0 with a JSON answer, or exit 2 with one line on stderr (never exit 1)", [
    Schema.String
  ], ([stdin]) =>
    Effect.gen(function*() {
      const result = yield* Effect.provide(Bridge.run(stdin), env)
      if (result.exitCode === 2) {
        assert.strictEqual(result.stdout, "")
        assert.match(result.stderr, /^interlock claude-hook: [^\n]+\n$/)
      } else {
        assert.strictEqual(result.exitCode, 0)
        assert.isObject(JSON.parse(result.stdout))
      }
    }))

  it.effect.prop(
    "allowAll is no rule: any tool call, any name, any input gets no allow",
    [Schema.Literals(["PreToolUse", "PermissionRequest"]), Schema.String, Schema.Record(Schema.String, Schema.Json)],
    ([event, tool_name, tool_input]) =>
      Effect.gen(function*() {
        const result = yield* Effect.provide(
          Bridge.run(JSON.stringify({ hook_event_name: event, tool_name, tool_input })),
          env
        )
        assert.strictEqual(result.exitCode, 0)
        // {} for a call, deny for one Interlock cannot read (an empty name): never an allow.
        const answer = JSON.parse(result.stdout)
        if (tool_name.length > 0) assert.deepStrictEqual(answer, {})
        assert.notInclude(result.stdout, `"allow"`)
      })
  )
})
