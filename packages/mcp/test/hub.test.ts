import { assert, describe, it } from "@effect/vitest"
import { Interlock, ToolCalls } from "@interlock/core"
import { McpServer } from "@modelcontextprotocol/server"
import { Effect, Fiber, Layer, Schedule } from "effect"
import { TestClock } from "effect/testing"
import { McpHub } from "../src/index.ts"
import { textResult } from "./fixtures/schema.ts"
import { allowAll } from "./helpers.ts"

const server = (name: string, tools: ReadonlyArray<string>) => () => {
  const mcp = new McpServer({ name, version: "1.0.0" }, { capabilities: { tools: {} } })
  for (const tool of tools) mcp.registerTool(tool, {}, async () => textResult(`${name}:${tool}`))
  return mcp
}

describe("hub of several servers", () => {
  it.live("each server has its own filter; listing all servers merges them; lazy servers connect on first use", () =>
    Effect.gen(function*() {
      const hub = yield* McpHub
      assert.deepStrictEqual(hub.serverIds, ["alpha", "beta"])
      assert.isFalse(hub.status("alpha")?.connected)
      assert.isTrue(hub.status("beta")?.connected)
      const calls = yield* ToolCalls
      const all = (yield* calls.listTools()).map((tool) => `${tool.serverId}/${tool.name}`).sort()
      assert.deepStrictEqual(all, ["alpha/read_note", "beta/delete_note", "beta/read_note"])
      assert.isTrue(hub.status("alpha")?.connected)
      assert.strictEqual((yield* calls.callTool({ serverId: "beta", name: "delete_note" })).text, "beta:delete_note")
      const hidden = yield* Effect.flip(calls.callTool({ serverId: "alpha", name: "Delete.Note" }))
      assert.strictEqual(hidden._tag, "ProtocolError")
      assert.isUndefined(hub.status("gamma"))
      const unknown = yield* Effect.flip(hub.connect("gamma"))
      assert.include(unknown.message, "no such server")
    }).pipe(Effect.provide(
      Interlock.layer({ policy: allowAll }).pipe(Layer.provideMerge(McpHub.layer({
        servers: {
          alpha: { memory: { server: server("alpha", ["read_note", "delete_note"]) }, tools: { deny: ["delete_*"] } },
          beta: { memory: { server: server("beta", ["read_note", "delete_note"]) }, connect: "eager" }
        }
      })))
    )))

  it.effect("a failed connection is retried on the server's Schedule (TestClock), then succeeds", () => {
    let attempts = 0
    const flaky = () => {
      attempts++
      if (attempts < 3) throw new Error("not ready yet")
      return server("flaky", ["ping"])()
    }
    return Effect.gen(function*() {
      const calls = yield* ToolCalls
      const fiber = yield* Effect.forkChild(calls.callTool({ serverId: "flaky", name: "ping" }))
      // Let the in-process attempts run, then move the clock past each backoff delay (1 s, then 2 s).
      for (const seconds of [1, 2]) {
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
        assert.strictEqual(attempts, seconds)
        yield* TestClock.adjust(`${seconds} seconds`)
      }
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.text, "flaky:ping")
      assert.strictEqual(attempts, 3)
    }).pipe(Effect.provide(
      Interlock.layer({ policy: allowAll }).pipe(Layer.provideMerge(McpHub.layer({
        servers: {
          flaky: {
            memory: { server: flaky },
            reconnect: Schedule.max([Schedule.exponential("1 second"), Schedule.recurs(5)])
          }
        }
      })))
    ))
  })

  it.effect("when the Schedule gives up, the last TransportError is returned", () =>
    Effect.gen(function*() {
      const calls = yield* ToolCalls
      const fiber = yield* Effect.forkChild(Effect.flip(calls.callTool({ serverId: "down", name: "ping" })))
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
      yield* TestClock.adjust("1 second")
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "TransportError")
      assert.include(error.message, "not ready")
    }).pipe(Effect.provide(
      Interlock.layer({ policy: allowAll }).pipe(Layer.provideMerge(McpHub.layer({
        servers: {
          down: {
            memory: {
              server: () => {
                throw new Error("not ready")
              }
            },
            reconnect: Schedule.max([Schedule.spaced("1 second"), Schedule.recurs(1)])
          }
        }
      })))
    )))
})
