import { afterAll, assert, describe, it } from "@effect/vitest"
import { Interlock, Policy, ToolCalls } from "@interlock/core"
import { Effect, Layer } from "effect"
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { McpHub } from "../src/index.ts"
import { allowAll, FILESYSTEM, NODE, noProcessLeft } from "./helpers.ts"

const root = realpathSync(mkdtempSync(join(tmpdir(), "interlock-fs-")))
writeFileSync(join(root, "hello.txt"), "hello from disk\n")
afterAll(() => rmSync(root, { recursive: true, force: true }))

const fs = (tools?: { readonly deny?: ReadonlyArray<string> }) =>
  McpHub.layer({
    servers: { fs: { stdio: { command: NODE, args: [FILESYSTEM, root] }, ...(tools === undefined ? {} : { tools }) } }
  })

describe("server-filesystem on a temporary directory", () => {
  it.live("a hub deny rule on write_* hides and stops writes; reads still work", () =>
    Effect.gen(function*() {
      const calls = yield* ToolCalls
      const read = yield* calls.callTool({
        serverId: "fs",
        name: "read_text_file",
        args: { path: join(root, "hello.txt") }
      })
      assert.include(read.text, "hello from disk")
      const names = (yield* calls.listTools("fs")).map((tool) => tool.name)
      assert.include(names, "read_text_file")
      assert.notInclude(names, "write_file")
      const target = join(root, "created.txt")
      // Spelled differently on purpose: names compare loosely.
      const error = yield* Effect.flip(
        calls.callTool({ serverId: "fs", name: "Write-File", args: { path: target, content: "x" } })
      )
      assert.strictEqual(error._tag, "ProtocolError")
      assert.isFalse(existsSync(target))
    }).pipe(Effect.provide(Interlock.layer({ policy: allowAll }).pipe(Layer.provideMerge(fs({ deny: ["write_*"] }))))))

  it.live("a policy deny rule on fs/write_* denies the write before it is sent", () =>
    Effect.gen(function*() {
      const calls = yield* ToolCalls
      const target = join(root, "policy.txt")
      const error = yield* Effect.flip(
        calls.callTool({ serverId: "fs", name: "write_file", args: { path: target, content: "x" } })
      )
      assert.strictEqual(error._tag, "Denied")
      assert.strictEqual(error.receipt?.sent, false)
      assert.isFalse(existsSync(target))
      const allowed = yield* calls.callTool({ serverId: "fs", name: "list_directory", args: { path: root } })
      assert.include(allowed.text, "hello.txt")
    }).pipe(Effect.provide(
      Interlock.layer({
        policy: Policy.rules({ rules: [{ match: "fs/write_*", decision: "deny" }, { match: "*", decision: "allow" }] })
      }).pipe(Layer.provideMerge(fs()))
    )))

  it.live("without a deny rule the same write goes through (the control case)", () =>
    Effect.gen(function*() {
      const calls = yield* ToolCalls
      const target = join(root, "control.txt")
      const result = yield* calls.callTool({ serverId: "fs", name: "write_file", args: { path: target, content: "x" } })
      assert.isNotTrue(result.isError)
      assert.isTrue(existsSync(target))
    }).pipe(Effect.provide(Interlock.layer({ policy: allowAll }).pipe(Layer.provideMerge(fs())))))

  it.live("leaves no process behind", noProcessLeft)
})
