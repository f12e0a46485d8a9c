import { assert, describe, it } from "@effect/vitest"
import { type HookContext, type HooksConfig, Interlock, type ToolCall, ToolCalls, Verdict } from "@interlock/core"
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/server"
import { Effect, Fiber, Layer, Schema } from "effect"
import { McpHub, McpTransport } from "../src/index.ts"
import { standard, textResult } from "./fixtures/schema.ts"
import { allowAll, eventually } from "./helpers.ts"

/** An in-process server: echo, a slow tool that records cancellation, a resource and a prompt. */
const makeServer = (log: { cancelled: Array<string>; progress: number }) => {
  const server = new McpServer({ name: "memory", version: "1.0.0" }, {
    capabilities: { tools: {}, resources: {}, prompts: {} }
  })
  server.registerTool(
    "echo",
    { inputSchema: standard(Schema.Struct({ text: Schema.String })) },
    async ({ text }: any) => textResult(text)
  )
  server.registerTool(
    "write_note",
    { inputSchema: standard(Schema.Struct({ text: Schema.String })) },
    async () => textResult("written")
  )
  server.registerTool(
    "slow",
    { inputSchema: standard(Schema.Struct({ tag: Schema.String })) },
    ({ tag }: any, ctx: any) =>
      new Promise((resolve) => {
        ctx.mcpReq.signal.addEventListener("abort", () => {
          log.cancelled.push(tag)
          resolve({ content: [] })
        })
      })
  )
  server.registerTool("steps", {}, async (ctx: any) => {
    const token = ctx.mcpReq._meta?.progressToken
    for (let i = 1; i <= 3; i++) {
      if (token !== undefined) {
        await ctx.mcpReq.notify({
          method: "notifications/progress",
          params: { progressToken: token, progress: i, total: 3 }
        })
      }
    }
    log.progress++
    return textResult("done")
  })
  server.registerTool("die", {}, async () => {
    // The in-process analogue of a crash: the server drops its end of the connection mid-call.
    setTimeout(() => void server.close(), 10)
    return new Promise(() => undefined)
  })
  server.registerTool("ticks", {}, async (ctx: any) => {
    // Six ticks, 100 ms apart: 600 ms in all, each tick well inside a 250 ms deadline.
    const token = ctx.mcpReq._meta?.progressToken
    for (let i = 1; i <= 6; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      if (token !== undefined) {
        await ctx.mcpReq.notify({
          method: "notifications/progress",
          params: { progressToken: token, progress: i, total: 6 }
        })
      }
    }
    return textResult("ticked 6")
  })
  server.registerResource("note", "note://one", { mimeType: "text/plain" }, async (uri: URL) => ({
    contents: [{ uri: uri.href, text: "the note" }]
  }))
  server.registerResource("item", new ResourceTemplate("item://{id}", { list: undefined }), {}, async (uri: URL) => ({
    contents: [{ uri: uri.href, text: `item ${uri.host}` }]
  }))
  server.registerPrompt("greet", { argsSchema: standard(Schema.Struct({ who: Schema.String })) }, ({ who }: any) => ({
    messages: [{ role: "user" as const, content: { type: "text" as const, text: `Hello ${who}` } }]
  }))
  return server
}

const setup = <const C extends HooksConfig = Record<never, never>>(hooks?: C) => {
  const log = { cancelled: [] as Array<string>, progress: 0 }
  const transport = McpTransport.memory("mem", { server: () => makeServer(log) }, { tools: { deny: ["write-*"] } })
  const layer = Interlock.layer({ policy: allowAll, hooks }).pipe(Layer.provideMerge(transport))
  return { log, layer }
}

describe("in-memory SDK McpServer", () => {
  it.live("calls a tool, reports the negotiated era, and hides filtered tools (loose names)", () => {
    const { layer } = setup()
    return Effect.gen(function*() {
      const calls = yield* ToolCalls
      const result = yield* calls.callTool({ serverId: "mem", name: "echo", args: { text: "hi" } })
      assert.strictEqual(result.text, "hi")
      assert.strictEqual(result.receipt?.outcome, "ok")
      const hub = yield* McpHub
      assert.match(hub.status("mem")?.era ?? "", /^(legacy|modern)\/\d{4}-\d{2}-\d{2}$/)
      const names = (yield* calls.listTools("mem")).map((tool) => tool.name)
      assert.deepStrictEqual([...names].sort(), ["die", "echo", "slow", "steps", "ticks"])
      const denied = yield* Effect.flip(calls.callTool({ serverId: "mem", name: "write_note", args: { text: "x" } }))
      assert.strictEqual(denied._tag, "ProtocolError")
      assert.include(denied.message, "not exposed")
    }).pipe(Effect.provide(layer))
  })

  it.live("hands ctx.era to hooks", () => {
    const seen: Array<string | undefined> = []
    const { layer } = setup({
      preToolCall: [{
        match: "*",
        id: "era",
        run: (_call: ToolCall, ctx: HookContext) => (seen.push(ctx.era), Verdict.continue)
      }]
    })
    return Effect.gen(function*() {
      const calls = yield* ToolCalls
      yield* calls.callTool({ serverId: "mem", name: "echo", args: { text: "a" } })
      yield* calls.callTool({ serverId: "mem", name: "echo", args: { text: "b" } })
      // The first call connects after ctx is built; the second sees the negotiated era.
      assert.match(seen[1] ?? "", /^(legacy|modern)\//)
    }).pipe(Effect.provide(layer))
  })

  it.live("reads resources and gets prompts through the gates", () => {
    const { layer } = setup({
      resourceRead: [{
        match: { server: "mem", regex: "^item:" },
        id: "no-items",
        run: () => Verdict.deny("items are private")
      }],
      promptGet: [{ match: "mem/greet", id: "rename", run: () => Verdict.rewrite({ args: { who: "Ada" } }) }]
    })
    return Effect.gen(function*() {
      const calls = yield* ToolCalls
      const note = yield* calls.readResource("mem", "note://one")
      assert.strictEqual(note.contents[0].text, "the note")
      const denied = yield* Effect.flip(calls.readResource("mem", "item://7"))
      assert.strictEqual(denied._tag, "Denied")
      const prompt = yield* calls.getPrompt("mem", "greet", { who: "Bob" })
      assert.deepStrictEqual(prompt.messages[0].content, { type: "text", text: "Hello Ada" })
      const bad = yield* Effect.flip(calls.getPrompt("mem", "other", { who: 3 }))
      assert.strictEqual(bad._tag, "ProtocolError")
      assert.include(bad.message, `"who" must be a string`)
      const missing = yield* Effect.flip(calls.readResource("mem", "nothing://here"))
      assert.strictEqual(missing._tag, "ProtocolError")
    }).pipe(Effect.provide(layer))
  })

  it.live("interrupting a call cancels it on the server", () => {
    const { layer, log } = setup()
    return Effect.gen(function*() {
      const calls = yield* ToolCalls
      yield* calls.callTool({ serverId: "mem", name: "echo", args: { text: "warm" } })
      const fiber = yield* Effect.forkChild(calls.callTool({ serverId: "mem", name: "slow", args: { tag: "first" } }))
      yield* Effect.sleep("20 millis")
      yield* Fiber.interrupt(fiber)
      yield* eventually(() => log.cancelled.includes("first"))
    }).pipe(Effect.provide(layer))
  })

  // The deadline is the SDK's request timer (a real timer), so this test runs in real time.
  it.live("a per-call deadline gives a Timeout and cancels the request on the server", () => {
    const { layer, log } = setup()
    return Effect.gen(function*() {
      const calls = yield* ToolCalls
      yield* calls.callTool({ serverId: "mem", name: "echo", args: { text: "warm" } })
      const error = yield* Effect.flip(
        calls.callTool({ serverId: "mem", name: "slow", args: { tag: "late" } }, { timeout: "150 millis" })
      )
      assert.strictEqual(error._tag, "Timeout")
      assert.strictEqual((error as { millis?: number }).millis, 150)
      assert.strictEqual(error.receipt?.outcome, "failed")
      yield* eventually(() => log.cancelled.includes("late"))
    }).pipe(Effect.provide(layer))
  })

  it.live("progress extends the deadline only when the host opts in", () => {
    const run = (progressExtendsDeadline: boolean) => {
      const log = { cancelled: [] as Array<string>, progress: 0 }
      const transport = McpTransport.memory("mem", { server: () => makeServer(log) }, { progressExtendsDeadline })
      return Effect.gen(function*() {
        const calls = yield* ToolCalls
        return yield* Effect.result(calls.callTool({ serverId: "mem", name: "ticks" }, { timeout: "250 millis" }))
      }).pipe(Effect.provide(Interlock.layer({ policy: allowAll }).pipe(Layer.provideMerge(transport))))
    }
    return Effect.gen(function*() {
      const strict = yield* run(false)
      assert.strictEqual(strict._tag === "Failure" ? strict.failure._tag : "ok", "Timeout")
      const extended = yield* run(true)
      assert.strictEqual(extended._tag === "Success" ? extended.success.text : "failed", "ticked 6")
    })
  })

  it.live("a server that drops the connection fails every in-flight call at once; the next call reconnects", () => {
    const { layer } = setup()
    return Effect.gen(function*() {
      const calls = yield* ToolCalls
      yield* calls.callTool({ serverId: "mem", name: "echo", args: { text: "warm" } })
      const slow = yield* Effect.forEach(
        ["x", "y"],
        (tag) => Effect.forkChild(Effect.flip(calls.callTool({ serverId: "mem", name: "slow", args: { tag } })))
      )
      const died = yield* Effect.flip(calls.callTool({ serverId: "mem", name: "die" }))
      for (const error of [died, ...(yield* Effect.forEach(slow, Fiber.join))]) {
        assert.strictEqual(error._tag, "TransportError")
        assert.include(error.message, "connection closed during tools/call")
      }
      const again = yield* calls.callTool({ serverId: "mem", name: "echo", args: { text: "back" } })
      assert.strictEqual(again.text, "back")
    }).pipe(Effect.provide(layer))
  })

  it.live("progress notifications reach the callback", () => {
    const { layer } = setup()
    return Effect.gen(function*() {
      const calls = yield* ToolCalls
      const seen: Array<string> = []
      const result = yield* calls.callTool({ serverId: "mem", name: "steps" }, {
        onProgress: (p) => seen.push(`${p.progress}/${p.total}`)
      })
      assert.strictEqual(result.text, "done")
      yield* eventually(() => seen.length === 3)
      assert.deepStrictEqual(seen, ["1/3", "2/3", "3/3"])
    }).pipe(Effect.provide(layer))
  })

  it.live("an unknown tool is a ProtocolError with the server's code; an unknown server a TransportError", () => {
    const { layer } = setup()
    return Effect.gen(function*() {
      const calls = yield* ToolCalls
      const unknownTool = yield* Effect.flip(calls.callTool({ serverId: "mem", name: "nope" }))
      assert.strictEqual(unknownTool._tag, "ProtocolError")
      assert.strictEqual((unknownTool as any).code, -32602)
      const unknownServer = yield* Effect.flip(calls.callTool({ serverId: "elsewhere", name: "echo" }))
      assert.strictEqual(unknownServer._tag, "TransportError")
      assert.include(unknownServer.message, "no such server")
    }).pipe(Effect.provide(layer))
  })
})
