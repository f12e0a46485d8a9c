import { assert, describe, it } from "@effect/vitest"
import { Interlock, ToolCalls } from "@interlock/core"
import { Effect, Layer } from "effect"
import { McpHub } from "../src/index.ts"
import { allowAll, eventually, FAULT_SERVER, NODE } from "./helpers.ts"

describe("a stdio server's stderr with onStderr", () => {
  it.live("goes to the sink once the process ends, and no error quotes it", () => {
    const tails: Array<string> = []
    return Effect.gen(function*() {
      const calls = yield* ToolCalls
      const crash = yield* Effect.flip(calls.callTool({ serverId: "faulty", name: "crash" }))
      assert.strictEqual(crash._tag, "TransportError")
      assert.include(crash.message, "exited with code 3")
      assert.notInclude(crash.message, "fatal")
      assert.notInclude(crash.message, "stderr")
      yield* eventually(() => tails.some((tail) => tail.includes("fatal: the crash tool was called")))
    }).pipe(Effect.provide(
      Interlock.layer({ policy: allowAll }).pipe(Layer.provideMerge(McpHub.layer({
        servers: {
          faulty: { stdio: { command: NODE, args: [FAULT_SERVER], onStderr: (tail) => void tails.push(tail) } }
        }
      })))
    ))
  })

  it("a sink that is not a function is a ConfigError naming it", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Layer.build(McpHub.layer({
        servers: { faulty: { stdio: { command: NODE, onStderr: "log" as never } } }
      })))
      assert.strictEqual(error._tag, "ConfigError")
      assert.include(error.message, "servers.faulty.stdio.onStderr")
    }).pipe(Effect.scoped, Effect.runPromise))
})
