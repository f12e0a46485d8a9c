import { assert, describe, it } from "@effect/vitest"
import { JsonText } from "@interlock/core"
import { Effect, Result, Schema } from "effect"
import { PassThrough } from "node:stream"
import { frameGuard } from "../src/front/stdio/FrameGuard.ts"

/** Feeds chunks through a guard; returns the values passed on (as JSON lines) and the errors written back. */
const run = (chunks: ReadonlyArray<string | Buffer>, maxBytes?: number) =>
  Effect.promise(async () => {
    const output = new PassThrough()
    const errors: Array<string> = []
    output.setEncoding("utf8")
    output.on("data", (chunk: string) => errors.push(...chunk.split("\n").filter((line) => line.length > 0)))
    const passed: Array<string> = []
    const guard = frameGuard({
      output,
      maxBytes,
      check: Result.succeed,
      deliver: (value) => passed.push(JSON.stringify(value))
    })
    for (const chunk of chunks) guard.write(chunk)
    guard.end()
    await new Promise((resolve) => guard.on("finish", resolve))
    return { passed, errors: errors.map((line) => JSON.parse(line).error.code as number) }
  })

describe("stdio frame guard", () => {
  it.effect("answers junk with -32700 and oversized lines with -32600, and passes the rest", () =>
    Effect.gen(function*() {
      const big = `{"x":"${"a".repeat(200)}"}`
      const { errors, passed } = yield* run([
        "not json\n{\"jsonrpc\":\"2.0\",\"id\":1,",
        "\"method\":\"ping\"}\n",
        big.slice(0, 50),
        big.slice(50),
        "\n",
        "[1]\n"
      ], 100)
      assert.deepStrictEqual(errors, [-32700, -32600])
      assert.deepStrictEqual(passed, ["{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", "[1]"])
    }))

  it.effect.prop("any JSON values, split into arbitrary chunks, pass through unchanged and in order", [
    Schema.Array(Schema.Json),
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 64 }))
  ], ([values, cut]) =>
    Effect.gen(function*() {
      const text = values.map((value) => `${JSON.stringify(value)}\n`).join("")
      const bytes = Buffer.from(text, "utf8")
      const chunks: Array<Buffer> = []
      for (let i = 0; i < bytes.length; i += cut) chunks.push(bytes.subarray(i, i + cut))
      const { errors, passed } = yield* run(chunks)
      assert.deepStrictEqual(errors, [])
      assert.deepStrictEqual(
        passed.map((line) => JsonText.parse(line)),
        values.map((value) => JsonText.parse(JSON.stringify(value)))
      )
    }))
})
