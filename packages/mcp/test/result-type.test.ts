/**
 * A missing `resultType` is read as "complete" on a 2026-07-28 connection (ResultTypeDefault.ts):
 * a real SDK 2 server over HTTP, whose answers lose their resultType on the way to the hub, still
 * serves tools, prompts, resources and listings; a resultType that is there (input_required, or a
 * non-string one) is left to the SDK as before.
 */
import { assert, describe, it } from "@effect/vitest"
import { Interlock, ToolCalls } from "@interlock/core"
import type { FetchLike, JSONRPCMessage, Transport } from "@modelcontextprotocol/client"
import { McpServer } from "@modelcontextprotocol/server"
import { Effect, Layer, Schema } from "effect"
import { Elicitation, McpHub, McpTransport } from "../src/index.ts"
import { defaultResultType, withDefaultResultType } from "../src/ResultTypeDefault.ts"
import { registerWho } from "./fixtures/asker.ts"
import { standard, textResult } from "./fixtures/schema.ts"
import { serveHttp } from "./fixtures/serve-http.ts"
import { allowAll } from "./helpers.ts"

const build = () => {
  const server = new McpServer({ name: "bare", version: "1.0.0" }, {
    capabilities: { tools: {}, prompts: {}, resources: {} }
  })
  server.registerTool(
    "echo",
    { inputSchema: standard(Schema.Struct({ text: Schema.String })) },
    async ({ text }: any) => textResult(text)
  )
  server.registerTool("odd", { inputSchema: standard(Schema.Struct({})) }, async () => textResult("odd"))
  registerWho(server)
  server.registerPrompt("greet", {}, () => ({ messages: [{ role: "user", content: { type: "text", text: "hi" } }] }))
  server.registerResource(
    "note",
    "note://one",
    { mimeType: "text/plain" },
    async (uri: URL) => ({ contents: [{ uri: uri.href, text: "v1" }] })
  )
  return server
}

/** The server over Streamable HTTP on 127.0.0.1. */
const bareServer = serveHttp(build)

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const KEPT = new Set(["server/discover", "subscriptions/listen"])

/**
 * A fetch that edits every result on its way to the SDK: `resultType` removed (an `input_required`
 * one kept, so the rounds still run), or made a number on the `odd` tool. `stripped` counts the
 * edited results by method.
 */
const strippingFetch = (stripped: Map<string, number>): FetchLike => async (url, init) => {
  const response = await fetch(url, init)
  const request: unknown = init?.method === "POST" && typeof init.body === "string" ? JSON.parse(init.body) : undefined
  const type = response.headers.get("content-type") ?? ""
  // The listen stream stays open (it is read as it comes); the discover answer keeps its resultType.
  if (!isRecord(request) || typeof request.method !== "string" || KEPT.has(request.method)) return response
  if (!type.includes("json") && !type.includes("event-stream")) return response
  const method = request.method
  const odd = method === "tools/call" && isRecord(request.params) && request.params.name === "odd"
  const edit = (message: Record<string, unknown>) => {
    const result = message.result
    if (!isRecord(result) || result.resultType === "input_required") return message
    const { resultType: _dropped, ...rest } = result
    stripped.set(method, (stripped.get(method) ?? 0) + 1)
    return { ...message, result: odd ? { ...rest, resultType: 42 } : rest }
  }
  const text = await response.text()
  const body = type.includes("json")
    ? JSON.stringify(edit(JSON.parse(text)))
    : text.replace(/^data: (.+)$/gm, (_line, data: string) => `data: ${JSON.stringify(edit(JSON.parse(data)))}`)
  const headers = new Headers(response.headers)
  headers.delete("content-length")
  return new Response(body, { status: response.status, headers })
}

const textOf = (result: { readonly content: ReadonlyArray<unknown> }) =>
  result.content.map((block) => (block as { text?: string }).text).join("")

describe("a missing resultType is complete on a 2026-07-28 connection", () => {
  it.live("tools/call, prompts/get, resources/read and the listings succeed through the hub", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* bareServer
      const stripped = new Map<string, number>()
      const hub = McpTransport.http("bare", { url: server.url, fetch: strippingFetch(stripped) }, {
        protocol: { pin: "2026-07-28" }
      })
      yield* Effect.gen(function*() {
        const calls = yield* ToolCalls
        const { features, status } = yield* McpHub
        const tools = yield* calls.listTools("bare")
        assert.deepStrictEqual(tools.map((tool) => tool.name).sort(), ["echo", "odd", "who"])
        assert.strictEqual(status("bare")?.era, "modern/2026-07-28")
        assert.strictEqual(
          textOf(yield* calls.callTool({ serverId: "bare", name: "echo", args: { text: "plain" } })),
          "plain"
        )
        const prompt = yield* calls.getPrompt("bare", "greet", {})
        assert.strictEqual(prompt.messages.length, 1)
        const read = yield* calls.readResource("bare", "note://one")
        assert.strictEqual((read.contents[0] as { text?: string }).text, "v1")
        assert.deepStrictEqual((yield* features.listPrompts("bare")).map((p) => p.name), ["greet"])
        assert.deepStrictEqual((yield* features.listResources("bare")).map((r) => r.uri), ["note://one"])
        // Each of them really came without a resultType.
        for (
          const method of [
            "tools/list",
            "tools/call",
            "prompts/get",
            "resources/read",
            "prompts/list",
            "resources/list"
          ]
        ) {
          assert.isAbove(stripped.get(method) ?? 0, 0, method)
        }
      }).pipe(Effect.provide(Interlock.layer({ policy: allowAll }).pipe(Layer.provideMerge(hub))))
    })))

  it.live("input_required still runs its rounds, and a non-string resultType is still refused", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* bareServer
      const hub = McpTransport.http("bare", { url: server.url, fetch: strippingFetch(new Map()) }, {
        protocol: { pin: "2026-07-28" }
      })
      yield* Effect.gen(function*() {
        const calls = yield* ToolCalls
        assert.strictEqual(textOf(yield* calls.callTool({ serverId: "bare", name: "who", args: {} })), "hello service")
        const odd = yield* Effect.flip(calls.callTool({ serverId: "bare", name: "odd", args: {} }))
        assert.strictEqual(odd._tag, "ProtocolError")
        assert.include(odd.message, "non-string resultType")
      }).pipe(Effect.provide(
        Interlock.layer({ policy: allowAll }).pipe(
          Layer.provideMerge(hub),
          Layer.provide(Elicitation.layer(() => Effect.succeed({ action: "accept", content: { name: "service" } })))
        )
      ))
    })))
})

describe("withDefaultResultType", () => {
  const response = (result: unknown) => ({ jsonrpc: "2.0", id: 1, result }) as unknown as JSONRPCMessage

  it("adds resultType complete to a result that has none, without touching the original", () => {
    const message = response({ content: [] })
    assert.deepStrictEqual(withDefaultResultType(message), response({ content: [], resultType: "complete" }))
    assert.deepStrictEqual(message, response({ content: [] }))
  })

  it("leaves every other message as it is", () => {
    const unchanged: Array<JSONRPCMessage> = [
      response({ resultType: "input_required", requestState: "s" }),
      response({ resultType: 7 }),
      response({ resultType: "complete" }),
      { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "no" } },
      { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } },
      { jsonrpc: "2.0", id: 3, method: "tools/list" }
    ]
    for (const message of unchanged) assert.strictEqual(withDefaultResultType(message), message)
  })

  it("applies to what a transport delivers only while the connection is modern", () => {
    let modern = false
    const seen: Array<unknown> = []
    const transport = {
      onmessage: undefined,
      start: async () => {},
      send: async () => {},
      close: async () => {}
    } as unknown as Transport
    defaultResultType(transport, () => modern)
    transport.onmessage = (message) => void seen.push(message)
    transport.onmessage?.(response({ content: [] }))
    modern = true
    transport.onmessage?.(response({ content: [] }))
    assert.deepStrictEqual(seen, [response({ content: [] }), response({ content: [], resultType: "complete" })])
  })
})
