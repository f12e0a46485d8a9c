import { assert, describe, it } from "@effect/vitest"
import { Interlock, ToolCalls } from "@interlock/core"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { McpHub } from "../src/index.ts"
import { exerciseEverything } from "./everything.ts"
import { alive, allowAll, descendants, EVERYTHING, NODE, noProcessLeft } from "./helpers.ts"

const everything = McpHub.layer({
  servers: { everything: { stdio: { command: NODE, args: [EVERYTHING] }, tools: { deny: ["everything/GZIP-file-*"] } } }
})

describe("server-everything over stdio", () => {
  it.live("calls, lists, reads, gets prompts and follows progress", () =>
    exerciseEverything("everything").pipe(
      Effect.provide(Interlock.layer({ policy: allowAll }).pipe(Layer.provideMerge(everything)))
    ))

  it.live("the hub filter hides a tool (loose names) and closing the scope ends the child process", () =>
    Effect.gen(function*() {
      const before = descendants().length
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        Interlock.layer({ policy: allowAll }).pipe(Layer.provideMerge(everything)),
        scope
      )
      const calls = Context.get(context, ToolCalls)
      const names = yield* calls.listTools("everything")
      assert.notInclude(names.map((tool) => tool.name), "gzip-file-as-resource")
      const hidden = yield* Effect.flip(
        calls.callTool({ serverId: "everything", name: "gzip-file-as-resource", args: {} })
      )
      assert.strictEqual(hidden._tag, "ProtocolError")
      const pid = Context.get(context, McpHub).status("everything")?.pid
      assert.isNumber(pid)
      assert.isTrue(alive(pid!))
      assert.isAbove(descendants().length, before)
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(alive(pid!))
      assert.strictEqual(descendants().length, before)
    }))

  it.live("an eager server connects while the Layer is built", () =>
    Effect.gen(function*() {
      const hub = yield* McpHub
      const status = hub.status("everything")
      assert.isTrue(status?.connected)
      assert.match(status?.era ?? "", /^legacy\//)
    }).pipe(
      Effect.provide(
        McpHub.layer({ servers: { everything: { stdio: { command: NODE, args: [EVERYTHING] }, connect: "eager" } } })
      )
    ))

  it.live("leaves no process behind", noProcessLeft)
})
