import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Interlock, ToolCalls } from "@interlock/core"
import { Effect, Fiber, Layer, Schedule } from "effect"
import { McpHub } from "../src/index.ts"
import { allowAll, eventually, FAULT_SERVER, NODE, noProcessLeft } from "./helpers.ts"

const dir = mkdtempSync(join(tmpdir(), "interlock-mcp-faults-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const read = (file: string): string => {
  try {
    return readFileSync(file, "utf8")
  } catch {
    return ""
  }
}

const fault = (env: Record<string, string>, settings: { reconnect?: Schedule.Schedule<unknown, unknown> } = {}) =>
  Interlock.layer({ policy: allowAll }).pipe(
    Layer.provideMerge(McpHub.layer({ servers: { faulty: { stdio: { command: NODE, args: [FAULT_SERVER], env }, ...settings } } }))
  )

describe("failures over stdio", () => {
  it.live("a command that does not exist is a TransportError naming the command, without retries", () =>
    Effect.gen(function*() {
      const calls = yield* ToolCalls
      const error = yield* Effect.flip(calls.callTool({ serverId: "ghost", name: "anything" }))
      assert.strictEqual(error._tag, "TransportError")
      assert.include(error.message, `cannot start server process "/nonexistent/mcp-server": command not found (ENOENT)`)
    }).pipe(
      Effect.provide(Interlock.layer({ policy: allowAll }).pipe(
        Layer.provideMerge(McpHub.layer({
          servers: { ghost: { stdio: { command: "/nonexistent/mcp-server" }, reconnect: Schedule.spaced("1 hour") } }
        }))
      ))
    ))

  it.live("a server that exits during initialize names the command, the exit code and its stderr; attempts follow the Schedule", () => {
    const starts = join(dir, "starts.log")
    return Effect.gen(function*() {
      const calls = yield* ToolCalls
      const error = yield* Effect.flip(calls.callTool({ serverId: "faulty", name: "echo", args: { text: "x" } }))
      assert.strictEqual(error._tag, "TransportError")
      assert.include(error.message, `server process ${JSON.stringify(NODE)} exited with code 2`)
      assert.include(error.message, "fatal: missing configuration FAULT_CONFIG")
      // One attempt plus two retries.
      assert.strictEqual(read(starts).trim().split("\n").length, 3)
    }).pipe(Effect.provide(fault(
      { FAULT_MODE: "exit-on-start", START_LOG: starts },
      { reconnect: Schedule.max([Schedule.spaced("10 millis"), Schedule.recurs(2)]) }
    )))
  })

  it.live("a crash fails every in-flight call at once; the next call reconnects to a new process", () =>
    Effect.gen(function*() {
      const calls = yield* ToolCalls
      const hub = yield* McpHub
      const firstPid = (yield* calls.callTool({ serverId: "faulty", name: "pid" })).text
      const slow = yield* Effect.forEach(["a", "b", "c"], (tag) =>
        Effect.forkChild(Effect.flip(calls.callTool({ serverId: "faulty", name: "slow", args: { ms: 60_000, tag } }))))
      const crash = yield* Effect.flip(calls.callTool({ serverId: "faulty", name: "crash" }))
      const failures = [crash, ...(yield* Effect.forEach(slow, Fiber.join))]
      for (const failure of failures) {
        assert.strictEqual(failure._tag, "TransportError")
        assert.include(failure.message, "exited with code 3")
        assert.include(failure.message, "fatal: the crash tool was called")
        assert.strictEqual(failure.receipt?.sent, true)
      }
      assert.isFalse(hub.status("faulty")?.connected)
      const secondPid = (yield* calls.callTool({ serverId: "faulty", name: "pid" })).text
      assert.notStrictEqual(secondPid, firstPid)
      assert.isTrue(hub.status("faulty")?.connected)
    }).pipe(Effect.provide(fault({}))))

  it.live("the call's deadline covers connecting to a server that never answers; closing the hub ends it", () =>
    Effect.gen(function*() {
      const calls = yield* ToolCalls
      const started = Date.now()
      const error = yield* Effect.flip(calls.callTool({ serverId: "mute", name: "anything" }, { timeout: "300 millis" }))
      assert.strictEqual(error._tag, "Timeout")
      assert.isBelow(Date.now() - started, 5_000)
    }).pipe(Effect.provide(Interlock.layer({ policy: allowAll }).pipe(Layer.provideMerge(McpHub.layer({
      servers: { mute: { stdio: { command: NODE, args: ["-e", "setInterval(() => {}, 1000)"] } } }
    }))))))

  it.live("the child gets the configured cwd and env", () =>
    Effect.gen(function*() {
      const calls = yield* ToolCalls
      const where = yield* calls.callTool({ serverId: "faulty", name: "whereami" })
      assert.strictEqual(where.text, `${dir} hello`)
    }).pipe(Effect.provide(Interlock.layer({ policy: allowAll }).pipe(Layer.provideMerge(McpHub.layer({
      servers: { faulty: { stdio: { command: NODE, args: [FAULT_SERVER], env: { FAULT_GREETING: "hello" }, cwd: dir } } }
    }))))))

  it.live("malformed frames do not crash the client", () =>
    Effect.gen(function*() {
      const calls = yield* ToolCalls
      const garbage = yield* calls.callTool({ serverId: "faulty", name: "garbage" })
      assert.strictEqual(garbage.text, "after garbage")
      const echo = yield* calls.callTool({ serverId: "faulty", name: "echo", args: { text: "still here" } })
      assert.strictEqual(echo.text, "still here")
    }).pipe(Effect.provide(fault({}))))

  it.live("interrupting a call sends notifications/cancelled to the server process", () => {
    const cancels = join(dir, "cancels.log")
    return Effect.gen(function*() {
      const calls = yield* ToolCalls
      yield* calls.callTool({ serverId: "faulty", name: "echo", args: { text: "warm" } })
      const fiber = yield* Effect.forkChild(calls.callTool({ serverId: "faulty", name: "slow", args: { ms: 60_000, tag: "stdio-1" } }))
      yield* Effect.sleep("50 millis")
      yield* Fiber.interrupt(fiber)
      yield* eventually(() => read(cancels).includes("cancelled stdio-1"))
    }).pipe(Effect.provide(fault({ CANCEL_LOG: cancels })))
  })

  it.live("no child process survives the tests above", noProcessLeft)
})
