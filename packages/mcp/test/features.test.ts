import { assert, describe, it } from "@effect/vitest"
import { Interlock, ToolCalls } from "@interlock/core"
import { toNodeHandler } from "@modelcontextprotocol/node"
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import { type HubNotification, McpHub, McpTransport } from "../src/index.ts"
import { textResult } from "./fixtures/schema.ts"
import { allowAll, eventually, EVERYTHING, NODE, noProcessLeft } from "./helpers.ts"

const everything = Interlock.layer({ policy: allowAll }).pipe(Layer.provideMerge(McpHub.layer({
  servers: { everything: { stdio: { command: NODE, args: [EVERYTHING] } } }
})))

/** Collects the hub's notifications for the rest of the test. */
const collect = Effect.gen(function*() {
  const hub = yield* McpHub
  const seen: Array<HubNotification> = []
  const stop = hub.features.onNotification((notification) => seen.push(notification))
  yield* Effect.addFinalizer(() => Effect.sync(stop))
  return seen
})

const updatesOf = (seen: ReadonlyArray<HubNotification>, uri: string) =>
  seen.filter((n) => n.method === "notifications/resources/updated" && n.params.uri === uri).length

describe("hub features beyond tools (server-everything over stdio)", () => {
  it.live("lists resources, templates and prompts, and completes a prompt argument", () =>
    Effect.gen(function*() {
      const { features } = yield* McpHub
      const caps = yield* features.capabilities("everything")
      assert.isTrue(caps.resources?.subscribe)
      const resources = yield* features.listResources("everything")
      assert.isAbove(resources.length, 1)
      assert.isTrue(
        resources.every((resource) => typeof resource.uri === "string" && typeof resource.name === "string")
      )
      const templates = yield* features.listResourceTemplates("everything")
      assert.include(templates.map((template) => template.uriTemplate), "demo://resource/dynamic/text/{resourceId}")
      const prompts = (yield* features.listPrompts("everything")).map((prompt) => prompt.name)
      assert.includeMembers(prompts, ["simple-prompt", "args-prompt", "completable-prompt"])
      const completion = yield* features.complete("everything", {
        ref: { type: "ref/prompt", name: "completable-prompt" },
        argument: { name: "department", value: "Eng" }
      })
      assert.deepStrictEqual(completion.completion.values, ["Engineering"])
      const unknown = yield* Effect.flip(features.listPrompts("nowhere"))
      assert.include(unknown.message, "no such server")
    }).pipe(Effect.provide(everything)))

  it.live("forwards log messages at the level set, and keeps a subscription across a server crash", () =>
    Effect.scoped(
      Effect.gen(function*() {
        const hub = yield* McpHub
        const calls = yield* ToolCalls
        const seen = yield* collect
        yield* hub.features.setLoggingLevel("everything", "debug")
        yield* calls.callTool({ serverId: "everything", name: "toggle-simulated-logging" })
        yield* eventually(() => seen.some((n) => n.method === "notifications/message" && n.serverId === "everything"))

        const uri = "demo://resource/static/document/architecture.md"
        yield* hub.features.subscribe("everything", uri)
        yield* calls.callTool({ serverId: "everything", name: "toggle-subscriber-updates" })
        yield* eventually(() => updatesOf(seen, uri) >= 1)

        // A crash: the next call reconnects, and the new session carries the subscription again.
        const pid = hub.status("everything")?.pid
        assert.isNumber(pid)
        process.kill(pid!, "SIGKILL")
        yield* eventually(() => hub.status("everything")?.connected === false)
        const before = updatesOf(seen, uri)
        yield* calls.callTool({ serverId: "everything", name: "toggle-subscriber-updates" })
        assert.notStrictEqual(hub.status("everything")?.pid, pid)
        yield* eventually(() => updatesOf(seen, uri) > before)

        yield* hub.features.unsubscribe("everything", uri)
      }).pipe(Effect.provide(everything))
    ))

  it.live("leaves no process behind", noProcessLeft)
})

describe("hub features on an in-process server", () => {
  const mcp = new McpServer({ name: "plain", version: "1.0.0" }, {
    capabilities: { tools: { listChanged: true }, prompts: { listChanged: true } }
  })
  mcp.registerTool("grow", {}, async () => {
    mcp.registerTool(`grown-${Date.now()}`, {}, async () => textResult("new"))
    mcp.registerPrompt(`prompt-${Date.now()}`, {}, () => ({ messages: [] }))
    return textResult("grew")
  })
  const layer = Interlock.layer({ policy: allowAll }).pipe(
    Layer.provideMerge(McpHub.layer({ servers: { plain: { memory: { server: mcp } } } }))
  )

  it.live("tool and prompt list changes reach the listeners; the tool listing is refreshed first", () =>
    Effect.scoped(
      Effect.gen(function*() {
        const seen = yield* collect
        const calls = yield* ToolCalls
        const before = (yield* calls.listTools("plain")).length
        yield* calls.callTool({ serverId: "plain", name: "grow" })
        yield* eventually(() => seen.some((n) => n.method === "notifications/prompts/list_changed"))
        yield* eventually(() => seen.some((n) => n.method === "notifications/tools/list_changed"))
        assert.isTrue(seen.every((n) => n.serverId === "plain"))
        assert.strictEqual((yield* calls.listTools("plain")).length, before + 1)
      }).pipe(Effect.provide(layer))
    ))

  it.live("what the server does not offer is a ProtocolError naming it, and an empty listing", () =>
    Effect.gen(function*() {
      const { features } = yield* McpHub
      assert.deepStrictEqual(yield* features.listResources("plain"), [])
      const subscribe = yield* Effect.flip(features.subscribe("plain", "x://y"))
      assert.strictEqual(subscribe._tag, "ProtocolError")
      assert.include(subscribe.message, "resource subscriptions")
      const complete = yield* Effect.flip(
        features.complete("plain", { ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "" } })
      )
      assert.include(complete.message, "completions")
      // A server without logging is skipped rather than failing the host's setLevel.
      yield* features.setLoggingLevel("plain", "info")
    }).pipe(Effect.provide(layer)))
})

/** An SDK 2 server speaking the 2026-07-28 revision over HTTP, whose changes are published on its listen bus. */
const modernServer = Effect.acquireRelease(
  Effect.promise(() => {
    const handler = createMcpHandler(() => {
      const server = new McpServer({ name: "modern", version: "1.0.0" }, {
        capabilities: { resources: { subscribe: true, listChanged: true } }
      })
      server.registerResource(
        "board",
        "board://main",
        { mimeType: "text/plain" },
        async (uri) => ({ contents: [{ uri: uri.href, text: "v1" }] })
      )
      return server
    })
    const node = toNodeHandler(handler)
    const http = createServer((req, res) => void node(req, res))
    return new Promise<{ url: string; notify: typeof handler.notify; close: () => Promise<void> }>((resolve) =>
      http.listen(0, "127.0.0.1", () => {
        const { port } = http.address() as { port: number }
        resolve({
          url: `http://127.0.0.1:${port}/mcp`,
          notify: handler.notify,
          close: () =>
            handler.close().then(() =>
              new Promise((done) => {
                http.close(() => done())
                http.closeAllConnections()
              })
            )
        })
      })
    )
  }),
  (server) => Effect.promise(() => server.close())
)

describe("hub features on a 2026-07-28 connection", () => {
  it.live("a subscription rides a subscriptions/listen stream; updates and list changes reach the listeners", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* modernServer
      yield* Effect.gen(function*() {
        const hub = yield* McpHub
        const seen = yield* collect
        yield* hub.features.subscribe("modern", "board://main")
        assert.strictEqual(hub.status("modern")?.era, "modern/2026-07-28")
        const resources = yield* hub.features.listResources("modern")
        assert.deepStrictEqual(resources.map((r) => r.uri), ["board://main"])
        server.notify.resourceUpdated("board://main")
        yield* eventually(() => updatesOf(seen, "board://main") === 1)
        server.notify.resourcesChanged()
        yield* eventually(() => seen.some((n) => n.method === "notifications/resources/list_changed"))
        yield* hub.features.unsubscribe("modern", "board://main")
        server.notify.resourceUpdated("board://main")
        server.notify.resourcesChanged()
        yield* eventually(() => seen.filter((n) => n.method === "notifications/resources/list_changed").length === 2)
        assert.strictEqual(updatesOf(seen, "board://main"), 1, "no update after unsubscribing")
      }).pipe(
        Effect.provide(
          Interlock.layer({ policy: allowAll }).pipe(
            Layer.provideMerge(McpTransport.http("modern", { url: server.url }))
          )
        )
      )
    })))
})
