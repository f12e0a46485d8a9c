/** @interlock/core/testing itself: the recording transport, the scripted approver and the Arbitraries. */
import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Effect, Fiber, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import { readFileSync } from "node:fs"
import { Canonical, canonicalName, Interlock, NativeTool, Policy, sameName, ToolCalls } from "../src/index.ts"
import { Arbitraries, RecordingTransport, SCRIPT_EXHAUSTED, ScriptedApprover } from "../src/testing/index.ts"
import { recordingTransport } from "./fixtures.ts"

const echo = NativeTool.make({ name: "echo", parameters: Schema.Struct({}), run: () => "ok" })
/** Any string, and a loose variant of it. */
const anyNamePair = Arbitrary.schema(Schema.String).pipe(
  Arbitrary.flatMap((name) => Arbitraries.looseVariant(name).pipe(Arbitrary.map((variant) => [name, variant] as const)))
)
const ask = Policy.rules({ rules: [{ id: "ask-all", match: "*", decision: "ask", reason: "check" }] })

describe("Arbitraries", () => {
  it.effect.prop(
    "a loose variant of a tool name is the same name to core",
    [Arbitraries.looseNamePair],
    ([[name, variant]]) =>
      Effect.sync(() => {
        assert.isTrue(sameName(name, variant))
        assert.strictEqual(canonicalName(variant), canonicalName(name))
      })
  )

  it.effect.prop(
    "a loose variant of any string is the same name to core",
    [anyNamePair],
    ([[name, variant]]) => Effect.sync(() => assert.isTrue(sameName(name, variant)))
  )

  it.effect("variants respell case, width, separators, ignorables and padding", () =>
    Effect.gen(function*() {
      const spellings = yield* Effect.orDie(
        Arbitrary.sampleEffect(Arbitraries.looseVariant("read_file"), { count: 200 })
      )
      assert.isTrue(spellings.some((s) => s.includes("R") || s.includes("E")), "case")
      assert.isTrue(spellings.some((s) => /[\uFF01-\uFF5E]/.test(s)), "width")
      assert.isTrue(spellings.some((s) => s.includes("-") || s.includes(".")), "separators")
      assert.isTrue(spellings.some((s) => /[\u200B\u00AD]/.test(s)), "ignorables")
      assert.isTrue(spellings.some((s) => s !== s.trim()), "padding")
    }))

  it.effect.prop("a call input's parts are the ones asked for, and its args reach the transport unchanged", [
    Arbitraries.callInput({ serverId: "local", name: "echo" })
  ], ([input]) => {
    const recording = RecordingTransport.make([echo])
    return Effect.gen(function*() {
      assert.isTrue(Canonical.isJsonObject(input.args))
      const calls = yield* ToolCalls
      yield* calls.callTool(input)
      assert.deepStrictEqual(recording.calls.map((call) => [call.serverId, call.name, call.callId]), [[
        "local",
        "echo",
        input.callId
      ]])
      assert.deepStrictEqual(recording.calls[0]?.args, input.args)
    }).pipe(Effect.provide(Interlock.layer({ policy: Policy.allowAll }).pipe(Layer.provide(recording.layer))))
  })

  it.effect.prop(
    "a tool call carries the digest of its fields",
    [Arbitraries.toolCall({ name: Arbitraries.toolName })],
    ([call]) =>
      Effect.sync(() => {
        const text = Canonical.canonicalJson({ serverId: call.serverId, name: call.name, args: call.args })
        assert.isString(text)
        assert.strictEqual(call.digest, Canonical.sha256Hex(text as string))
      })
  )
})

describe("RecordingTransport", () => {
  it.effect("records what reaches any transport, as the service too, and forgets on clear", () => {
    const inner = recordingTransport()
    const recording = RecordingTransport.record(inner.layer)
    return Effect.gen(function*() {
      const calls = yield* ToolCalls
      yield* calls.callTool({ serverId: "srv", name: "echo", args: { n: 1 } })
      yield* Effect.flip(calls.callTool({ serverId: "srv", name: "fail" }))
      const service = yield* RecordingTransport
      assert.deepStrictEqual(service.calls.map((call) => call.name), ["echo", "fail"])
      assert.deepStrictEqual(recording.calls.map((call) => call.name), ["echo", "fail"])
      assert.strictEqual(inner.log.calls.length, 2)
      recording.clear()
      assert.deepStrictEqual(service.calls, [])
    }).pipe(Effect.provide(Interlock.layer({ policy: Policy.allowAll }).pipe(Layer.provideMerge(recording.layer))))
  })
})

describe("ScriptedApprover", () => {
  it.effect("answers in order, records each ask, times out on never, then denies with SCRIPT_EXHAUSTED", () => {
    const approver = ScriptedApprover.make([{ decision: "allow" }, "never"], { timeout: "10 seconds" })
    return Effect.gen(function*() {
      const calls = yield* ToolCalls
      const first = yield* calls.callTool({ serverId: "local", name: "echo" })
      assert.deepStrictEqual(first.receipt?.approval, { decision: "allow", source: "approver" })
      assert.strictEqual(approver.remaining, 1)
      const waiting = yield* Effect.forkChild(
        Effect.flip(calls.callTool({ serverId: "local", name: "echo", args: { n: 2 } }))
      )
      yield* TestClock.adjust("10 seconds")
      const timedOut = yield* Fiber.join(waiting)
      assert.strictEqual(timedOut.receipt?.approval?.source, "timeout")
      const exhausted = yield* Effect.flip(calls.callTool({ serverId: "local", name: "echo", args: { n: 3 } }))
      assert.strictEqual(exhausted.message, `approval denied: ${SCRIPT_EXHAUSTED}`)
      const service = yield* ScriptedApprover
      assert.deepStrictEqual(service.asked.map((request) => [request.rule, request.call.args]), [["ask-all", {}], [
        "ask-all",
        { n: 2 }
      ], ["ask-all", { n: 3 }]])
      assert.strictEqual(service.remaining, 0)
    }).pipe(
      Effect.provide(
        Interlock.layer({ policy: ask, approvals: approver.layer }).pipe(
          Layer.provideMerge(approver.layer),
          Layer.provide(RecordingTransport.make([echo]).layer)
        )
      )
    )
  })
})

describe("the README", () => {
  it("shows the example test exactly as the suite runs it", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")
    const example = readFileSync(new URL("./examples/policy.test.ts", import.meta.url), "utf8")
    assert.include(readme, `\`\`\`ts file=policy.test.ts\n${example}\`\`\`\n`)
  })
})
