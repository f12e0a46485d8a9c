/**
 * Everything beyond tools, end to end: an SDK host on real HTTP, the gateway, server-everything and
 * the echo fixture as real stdio processes. The host must see what it would see without the
 * gateway: the same resources, templates, contents, prompts and completions, plus the updates, log
 * messages and list changes the servers send.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Client, ProtocolError, type StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Client as SdkClient } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Effect } from "effect"
import { echoServer, everythingServer, httpClient, startGateway } from "./e2e.ts"

const config = {
  servers: { everything: everythingServer, echo: echoServer },
  policy: { default: "allow" },
  redact: [{ match: "*", detectors: "all" }]
}

/** server-everything on its own, without the gateway: the ground truth. */
const direct = Effect.acquireRelease(
  Effect.promise(async () => {
    const client = new SdkClient({ name: "direct", version: "1.0.0" })
    await client.connect(
      new StdioClientTransport({ command: everythingServer.command, args: everythingServer.args, stderr: "ignore" })
    )
    return client
  }),
  (client) => Effect.promise(() => client.close())
)

/** Records the notifications a host gets, by method. */
const record = (client: Client, methods: ReadonlyArray<string>) => {
  const seen: Array<{ method: string; params?: Record<string, unknown> }> = []
  for (const method of methods) {
    client.setNotificationHandler(
      method as never,
      ((n: { method: string; params?: Record<string, unknown> }) => void seen.push(n)) as never
    )
  }
  return seen
}

const until = (check: () => boolean, ms = 10_000) =>
  Effect.promise(async () => {
    const end = Date.now() + ms
    while (!check()) {
      if (Date.now() > end) throw new Error("condition not met in time")
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  })

/** A resource entry with its "created at <time>" (in text, or base64 text) taken out. */
const timeless = (entry: Record<string, unknown>) => {
  const strip = (text: string) => text.replace(/created at .*$/, "created at (time)")
  const out: Record<string, unknown> = { ...entry }
  if (typeof entry.text === "string") out.text = strip(entry.text)
  if (typeof entry.blob === "string") out.blob = strip(Buffer.from(entry.blob, "base64").toString("utf8"))
  return out
}

const wireError = (promise: Promise<unknown>) =>
  Effect.promise(() => promise.then(() => undefined, (error: unknown) => error)).pipe(
    Effect.map((error) => {
      assert.instanceOf(error, ProtocolError)
      return error as ProtocolError
    })
  )

describe("forwarding beyond tools", () => {
  it.live(
    "resources, templates, reads and prompts match the server's own answers; names are namespaced, URIs are not",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const truth = yield* direct
        const { http } = yield* startGateway(config)
        const host = yield* httpClient(http.mcpUrl)

        const expected = (yield* Effect.promise(() => truth.listResources())).resources
        const got = (yield* Effect.promise(() => host.listResources())).resources
        assert.deepStrictEqual(got.filter((r) => r.uri.startsWith("demo://")), expected)
        assert.include(got.map((r) => r.uri), "echo://notes/today")
        const templates = (yield* Effect.promise(() => host.listResourceTemplates())).resourceTemplates
        assert.deepStrictEqual(
          templates,
          (yield* Effect.promise(() => truth.listResourceTemplates())).resourceTemplates
        )

        for (const uri of [expected[0].uri, "demo://resource/dynamic/text/3", "demo://resource/dynamic/blob/4"]) {
          const via = yield* Effect.promise(() => host.readResource({ uri }))
          const own = yield* Effect.promise(() => truth.readResource({ uri }))
          // server-everything's dynamic resources say when they were made: compare them without it.
          assert.deepStrictEqual(via.contents.map(timeless), own.contents.map(timeless), uri)
        }
        const missing = yield* wireError(host.readResource({ uri: "nowhere://at/all" }))
        assert.strictEqual(missing.code, -32602)
        assert.deepStrictEqual(missing.data, { uri: "nowhere://at/all" })

        const prompts = (yield* Effect.promise(() => host.listPrompts())).prompts
        const own = (yield* Effect.promise(() => truth.listPrompts())).prompts
        assert.deepStrictEqual(
          prompts.map((p) => p.name).filter((n) => n.startsWith("everything__")),
          own.map((p) => `everything__${p.name}`)
        )
        const prompt = yield* Effect.promise(() =>
          host.getPrompt({ name: "everything__args-prompt", arguments: { city: "Lyon" } })
        )
        assert.deepStrictEqual(
          prompt.messages,
          (yield* Effect.promise(() => truth.getPrompt({ name: "args-prompt", arguments: { city: "Lyon" } }))).messages
        )
        const unknown = yield* wireError(host.getPrompt({ name: "args-prompt" }))
        assert.strictEqual(unknown.code, -32602)

        const byPrompt = yield* Effect.promise(() =>
          host.complete({
            ref: { type: "ref/prompt", name: "everything__completable-prompt" },
            argument: { name: "department", value: "Eng" }
          })
        )
        assert.deepStrictEqual(byPrompt.completion.values, ["Engineering"])
        const byTemplate = yield* Effect.promise(() =>
          host.complete({
            ref: { type: "ref/resource", uri: templates[0].uriTemplate },
            argument: { name: "resourceId", value: "1" }
          })
        )
        assert.deepStrictEqual(
          byTemplate,
          yield* Effect.promise(() =>
            truth.complete({
              ref: { type: "ref/resource", uri: templates[0].uriTemplate },
              argument: { name: "resourceId", value: "1" }
            })
          )
        )
      })),
    60_000
  )

  it.live("the config's redactions apply to resource contents too", () =>
    Effect.scoped(Effect.gen(function*() {
      const { http } = yield* startGateway(config)
      const host = yield* httpClient(http.mcpUrl)
      const read = yield* Effect.promise(() => host.readResource({ uri: "echo://notes/today" }))
      const text = JSON.stringify(read.contents)
      assert.notInclude(text, "sk-abcdefghijklmnopqrstuvwxyz0123")
      assert.include(text, "[REDACTED]")
    })), 60_000)

  it.live(
    "subscriptions are shared between hosts: one unsubscribing leaves the other's updates flowing",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { http } = yield* startGateway(config)
        const alice = yield* httpClient(http.mcpUrl)
        const bob = yield* httpClient(http.mcpUrl)
        const aliceSeen = record(alice, ["notifications/resources/updated"])
        const bobSeen = record(bob, ["notifications/resources/updated"])
        const uri = "demo://resource/static/document/architecture.md"
        yield* Effect.promise(() => alice.subscribeResource({ uri }))
        yield* Effect.promise(() => bob.subscribeResource({ uri }))
        yield* Effect.promise(() => alice.unsubscribeResource({ uri }))
        // server-everything sends an update for each subscribed URI when updates are switched on.
        yield* Effect.promise(() => bob.callTool({ name: "everything__toggle-subscriber-updates", arguments: {} }))
        yield* until(() => bobSeen.length > 0)
        assert.deepStrictEqual(bobSeen[0].params, { uri })
        assert.strictEqual(aliceSeen.length, 0)
        const unknown = yield* wireError(bob.subscribeResource({ uri: "nowhere://at/all" }))
        assert.strictEqual(unknown.code, -32602)

        // A host that leaves gives up its subscriptions: server-everything logs the unsubscribe it gets.
        const carol = yield* httpClient(http.mcpUrl)
        const logs = record(bob, ["notifications/message"])
        const other = "demo://resource/static/document/extension.md"
        yield* Effect.promise(() => carol.subscribeResource({ uri: other }))
        yield* Effect.promise(() => (carol.transport as StreamableHTTPClientTransport).terminateSession())
        yield* until(() => logs.some((n) => String(n.params?.data).includes(`Unsubscribe Resource request: ${other}`)))
      })),
    60_000
  )

  it.live(
    "log messages reach the host with the server named, and list changes are forwarded",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { http } = yield* startGateway(config)
        const host = yield* httpClient(http.mcpUrl)
        const seen = record(host, [
          "notifications/message",
          "notifications/tools/list_changed",
          "notifications/prompts/list_changed"
        ])
        yield* Effect.promise(() => host.setLoggingLevel("debug"))
        yield* Effect.promise(() => host.callTool({ name: "everything__toggle-simulated-logging", arguments: {} }))
        yield* until(() => seen.some((n) => n.method === "notifications/message"))
        const message = seen.find((n) => n.method === "notifications/message")
        assert.strictEqual(message?.params?.logger, "everything")
        assert.match(String(message?.params?.data), /message/)

        const before = (yield* Effect.promise(() => host.listPrompts())).prompts.length
        yield* Effect.promise(() => host.callTool({ name: "echo__add_prompt", arguments: {} }))
        yield* until(() => seen.some((n) => n.method === "notifications/prompts/list_changed"))
        assert.strictEqual((yield* Effect.promise(() => host.listPrompts())).prompts.length, before + 1)
        yield* Effect.promise(() => host.callTool({ name: "echo__mutate", arguments: {} }))
        yield* until(() => seen.some((n) => n.method === "notifications/tools/list_changed"))
      })),
    60_000
  )

  it.live(
    "a server that cannot start is left out of every listing instead of hiding the others",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const broken = { command: "/nonexistent/interlock-test-server" }
        const { http } = yield* startGateway({ ...config, servers: { echo: echoServer, broken } })
        const host = yield* httpClient(http.mcpUrl)
        const tools = (yield* Effect.promise(() => host.listTools())).tools.map((tool) => tool.name)
        assert.include(tools, "echo__echo")
        assert.isTrue(tools.every((name) => name.startsWith("echo__")))
        assert.deepStrictEqual((yield* Effect.promise(() => host.listResources())).resources.map((r) => r.uri), [
          "echo://notes/today"
        ])
        assert.deepStrictEqual((yield* Effect.promise(() => host.listPrompts())).prompts.map((p) => p.name), [
          "echo__note-0"
        ])
        const call = yield* Effect.promise(() => host.callTool({ name: "broken__anything", arguments: {} }))
        assert.isTrue(call.isError)
        assert.include(JSON.stringify(call.content), "command not found")
      })),
    60_000
  )

  it.live(
    "when no server answers, the listing fails rather than looking empty",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { http } = yield* startGateway({
          servers: { broken: { command: "/nonexistent/interlock-test-server" } },
          policy: { default: "allow" }
        })
        const host = yield* httpClient(http.mcpUrl)
        const failed = yield* Effect.promise(() => host.listPrompts().then(() => undefined, (error: Error) => error))
        assert.instanceOf(failed, ProtocolError)
      })),
    60_000
  )
})
