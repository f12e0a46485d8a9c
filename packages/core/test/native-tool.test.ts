import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { Interlock, NativeTool, Policy, ToolCalls, ToolResult, ToolTransport } from "../src/index.ts"
import { addTool } from "./fixtures.ts"

const failing = NativeTool.make({
  name: "fails",
  parameters: Schema.Struct({}),
  run: () => Effect.fail(new Error("disk full"))
})
const dies = NativeTool.make({
  name: "dies",
  parameters: Schema.Struct({}),
  run: () => Effect.die(new Error("secret internals"))
})
const shaped = NativeTool.make({
  name: "shaped",
  description: "returns JSON",
  parameters: Schema.Struct({ n: Schema.Int }),
  run: ({ n }) => Promise.resolve({ doubled: n * 2 })
})
const layer = Interlock.layer({ policy: Policy.allowAll }).pipe(
  Layer.provide(ToolTransport.fromTools([addTool, failing, dies, shaped]))
)

const run = (name: string, args: Record<string, unknown>) =>
  Effect.flatMap(ToolCalls, (calls) => Effect.result(calls.callTool({ serverId: "local", name, args: args as never })))

describe("native tools (ToolTransport.fromTools)", () => {
  it.effect("decode arguments with their Schema and answer through the pipeline", () =>
    Effect.gen(function*() {
      const sum = yield* run("add", { a: 2, b: 3 })
      assert.strictEqual(sum._tag === "Success" && sum.success.text, "5")
      const json = yield* run("shaped", { n: 21 })
      assert.deepStrictEqual(json._tag === "Success" && json.success.structuredContent, { doubled: 42 })
      const invalid = yield* run("add", { a: "two" })
      assert.isTrue(invalid._tag === "Success" && invalid.success.isError)
      assert.strictEqual(invalid._tag === "Success" && invalid.success.text, "Invalid arguments for add.")
    }).pipe(Effect.provide(layer)))

  it.effect("a failing tool gives an isError result; a defect is not quoted", () =>
    Effect.gen(function*() {
      const failed = yield* run("fails", {})
      assert.strictEqual(failed._tag === "Success" && failed.success.text, "Tool failed: disk full")
      const died = yield* run("dies", {})
      assert.strictEqual(died._tag === "Success" && died.success.text, "Tool failed.")
      assert.strictEqual(died._tag === "Success" && died.success.receipt?.outcome, "tool_error")
    }).pipe(Effect.provide(layer)))

  it.effect("unknown tools and servers are errors; listings carry input schemas and fingerprints", () =>
    Effect.gen(function*() {
      const unknown = yield* run("nope", {})
      assert.strictEqual(unknown._tag === "Failure" && unknown.failure._tag, "ProtocolError")
      const calls = yield* ToolCalls
      const tools = yield* calls.listTools("local")
      assert.deepStrictEqual(tools.map((t) => t.name), ["add", "fails", "dies", "shaped"])
      assert.deepStrictEqual(tools[0].inputSchema.required, ["a", "b"])
      assert.notStrictEqual(tools[0].fingerprint, tools[1].fingerprint)
      assert.strictEqual((yield* Effect.flip(calls.listTools("elsewhere")))._tag, "TransportError")
      assert.strictEqual((yield* Effect.flip(calls.readResource("local", "x://y")))._tag, "ProtocolError")
      assert.instanceOf(ToolResult.text("x"), ToolResult)
    }).pipe(Effect.provide(layer)))
})
