/**
 * Issue 14 section 1, toward hosts: the gateway's front serves the 2026-07-28 revision beside 2025
 * (chosen per request) over HTTP and stdio, with SDK 2.4 clients of both eras against real
 * gateways: server/discover, no session, resultType and the cache hints, subscriptions/listen,
 * and the same calls pipeline (audit, principal). modern-input-required.test.ts has the host's input of a retry.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import * as path from "node:path"
import { BIN, cliIn, toolText } from "./cli-process.ts"
import { echoServer, httpClient, NODE, startGateway } from "./e2e.ts"
import { envelope, MODERN, modernHttpClient, modernPost, stdioClient } from "./modern-wire.ts"

const CONFORMANCE = { command: NODE, args: [path.join(import.meta.dirname, "fixtures", "conformance-server.ts")] }
/**
 * The fixture spoken to in a 2025 revision, whose resources/subscribe shows whether the gateway holds a downstream
 * subscription.
 */
const LEGACY_CONFORMANCE = { ...CONFORMANCE, protocol: "legacy" }
const principals = { alice: { token: "env:ALICE_TOKEN" }, bob: { token: "env:BOB_TOKEN" } }
const ENV = { ALICE_TOKEN: "alice-token-1", BOB_TOKEN: "bob-token-1" }

/** Resolves once `count` notifications of `method` reached `client` (the test's timeout bounds it). */
const notified = (client: Client, methods: ReadonlyArray<string>) => {
  const seen: Array<{ method: string; params?: unknown }> = []
  const waiters: Array<() => void> = []
  for (const method of methods) {
    client.setNotificationHandler(method as "notifications/tools/list_changed", (notification) => {
      seen.push(notification)
      for (const wake of waiters.splice(0)) wake()
    })
  }
  const until = async (method: string, count = 1) => {
    while (seen.filter((n) => n.method === method).length < count) await new Promise<void>((wake) => waiters.push(wake))
  }
  return { seen, until }
}

describe("the 2026-07-28 front over HTTP", () => {
  it.live(
    "a pinned SDK 2.4 client and a 2025 client share one gateway: no session for the first, the same pipeline and " +
      "audit for both",
    () =>
      Effect.gen(function*() {
        const { gateway, http } = yield* startGateway({
          servers: { echo: echoServer },
          policy: { default: "allow" },
          listen: { principals },
          redact: [{ detectors: "all" }]
        }, ENV)
        const modern = yield* modernHttpClient(http.mcpUrl, { token: ENV.ALICE_TOKEN })
        assert.strictEqual(modern.getProtocolEra(), "modern")
        assert.strictEqual(modern.getNegotiatedProtocolVersion(), MODERN)
        assert.deepStrictEqual(modern.getDiscoverResult()?._meta?.["io.modelcontextprotocol/serverInfo"], {
          name: "interlock-gateway",
          version: gateway.deps.version
        })
        const tools = yield* Effect.promise(() => modern.listTools())
        assert.includeMembers(tools.tools.map((t) => t.name), ["echo", "slow"])
        const echoed = yield* Effect.promise(() =>
          modern.callTool({ name: "echo", arguments: { text: "hello modern" } })
        )
        assert.strictEqual(toolText(echoed), "hello modern")
        // Progress reaches a modern host on its call's own stream, before the result (read on the wire:
        // the SDK client hands notifications over a tick after responses, so its callback may miss the
        // last one; for the same reason a progress a server sends just before its result can miss the
        // gateway's call in either era, so only the ones with a step after them are counted).
        const slow = yield* modernPost(http.mcpUrl, {
          id: 7,
          method: "tools/call",
          params: { name: "slow", arguments: { ms: 90, steps: 3 }, _meta: { ...envelope(), progressToken: 7 } }
        }, { authorization: `Bearer ${ENV.ALICE_TOKEN}` })
        const events = slow.text.split("\n").filter((line) => line.startsWith("data: ")).map((line) =>
          JSON.parse(line.slice(6)) as { method?: string }
        )
        assert.strictEqual(events.at(-1)?.method, undefined, "the result comes last")
        assert.isAtLeast(events.filter((e) => e.method === "notifications/progress").length, 2)
        assert.lengthOf(events.filter((e) => e.method === undefined), 1)
        // The resource read passes the redactions as for a 2025 host.
        const note = yield* Effect.promise(() => modern.readResource({ uri: "echo://notes/today" }))
        assert.notInclude(JSON.stringify(note), "sk-abcdefghijklmnopqrstuvwxyz0123")
        assert.strictEqual(http.liveSessions(), 0, "a 2026-07-28 host opens no session")

        const legacy = yield* httpClient(http.mcpUrl, { token: ENV.BOB_TOKEN })
        assert.strictEqual(legacy.getProtocolEra(), "legacy")
        assert.strictEqual(
          toolText(yield* Effect.promise(() => legacy.callTool({ name: "echo", arguments: { text: "hello legacy" } }))),
          "hello legacy"
        )
        assert.strictEqual(http.liveSessions(), 1)

        const rows = yield* gateway.store.query()
        assert.deepStrictEqual(rows.filter((r) => r.tool === "echo").map((r) => [r.principal, r.outcome]).sort(), [[
          "alice",
          "ok"
        ], ["bob", "ok"]])
        assert.strictEqual(rows.find((r) => r.tool === "slow")?.principal, "alice")
        assert.lengthOf(
          gateway.deps.hosts.all(),
          1,
          "only the 2025 session is a connected host; each modern request's server is gone"
        )
      }),
    60_000
  )

  it.live(
    "on the wire: resultType on every result, the cache hints on listings and discover, no Mcp-Session-Id",
    () =>
      Effect.gen(function*() {
        const { http } = yield* startGateway({ servers: { echo: echoServer }, policy: { default: "allow" } })
        const discover = yield* modernPost(http.mcpUrl, {
          id: 1,
          method: "server/discover",
          params: { _meta: envelope() }
        })
        assert.strictEqual(discover.status, 200, discover.text)
        assert.deepInclude(discover.json.result, { resultType: "complete", ttlMs: 60_000, cacheScope: "private" })
        assert.include(discover.json.result.supportedVersions, MODERN)
        assert.isNull(discover.headers.get("mcp-session-id"))
        for (const method of ["tools/list", "resources/list", "resources/templates/list", "prompts/list"]) {
          const listed = yield* modernPost(http.mcpUrl, { id: 2, method, params: { _meta: envelope() } })
          assert.deepInclude(listed.json.result, { resultType: "complete", ttlMs: 0, cacheScope: "private" }, method)
        }
        const read = yield* modernPost(http.mcpUrl, {
          id: 3,
          method: "resources/read",
          params: { uri: "echo://notes/today", _meta: envelope() }
        })
        assert.deepInclude(read.json.result, { resultType: "complete", ttlMs: 0, cacheScope: "private" })
        const call = yield* modernPost(http.mcpUrl, {
          id: 4,
          method: "tools/call",
          params: { name: "echo", arguments: { text: "x" }, _meta: envelope() }
        })
        assert.strictEqual(call.json.result.resultType, "complete")
        assert.deepStrictEqual(call.json.result.content, [{ type: "text", text: "x" }])
        assert.strictEqual(http.liveSessions(), 0)
      }),
    60_000
  )

  it.live(
    "an SDK 2.4 client in `auto` mode negotiates 2026-07-28 with the gateway; a plain one stays on 2025",
    () =>
      Effect.gen(function*() {
        const { http } = yield* startGateway({ servers: { echo: echoServer }, policy: { default: "allow" } })
        const auto = new Client({ name: "auto-host", version: "1.0.0" }, {
          capabilities: {},
          versionNegotiation: { mode: "auto" }
        })
        const { StreamableHTTPClientTransport } = yield* Effect.promise(() => import("@modelcontextprotocol/client"))
        yield* Effect.acquireRelease(
          Effect.promise(() => auto.connect(new StreamableHTTPClientTransport(new URL(http.mcpUrl)))),
          () => Effect.promise(() => auto.close())
        )
        assert.strictEqual(auto.getProtocolEra(), "modern")
        const plain = yield* httpClient(http.mcpUrl)
        assert.strictEqual(plain.getProtocolEra(), "legacy")
        assert.strictEqual(plain.getNegotiatedProtocolVersion(), "2025-11-25")
      }),
    60_000
  )

  it.live(
    "subscriptions/listen: list changes and the listened resource's updates from downstream reach the listening host",
    () =>
      Effect.gen(function*() {
        // Two servers: with one, every URI is that server's, and it answers for URIs it never listed.
        const { gateway, http } = yield* startGateway({
          servers: { conformance: LEGACY_CONFORMANCE, echo: echoServer },
          namespace: "never",
          policy: { default: "allow" }
        })
        const host = yield* modernHttpClient(http.mcpUrl)
        const { seen, until } = notified(host, [
          "notifications/tools/list_changed",
          "notifications/resources/updated",
          "notifications/prompts/list_changed"
        ])
        yield* Effect.promise(() => host.listTools())
        yield* Effect.promise(() => host.listResources())
        const subscription = yield* Effect.promise(() =>
          host.listen({
            toolsListChanged: true,
            promptsListChanged: true,
            resourceSubscriptions: ["test://watched-resource", "test://nobody-offers-this"]
          })
        )
        assert.deepStrictEqual(
          subscription.honoredFilter.resourceSubscriptions,
          ["test://watched-resource"],
          "only a resource a server offers is followed"
        )
        const updated = yield* Effect.promise(() =>
          host.callTool({ name: "test_update_watched_resource", arguments: {} })
        )
        assert.include(
          toolText(updated),
          "subscriber notified",
          "the gateway subscribed the listened resource downstream"
        )
        yield* Effect.promise(() => until("notifications/resources/updated"))
        assert.strictEqual(
          (seen.find((n) => n.method === "notifications/resources/updated")!.params as { uri: string }).uri,
          "test://watched-resource"
        )
        yield* Effect.promise(() => host.callTool({ name: "test_change_lists", arguments: {} }))
        yield* Effect.promise(() => until("notifications/tools/list_changed"))
        yield* Effect.promise(() => until("notifications/prompts/list_changed"))
        yield* Effect.promise(() => subscription.close())
        assert.strictEqual(yield* Effect.promise(() => subscription.closed), "local")
        // The stream's end released the downstream subscription and the bridge.
        yield* Effect.promise(async () => {
          for (
            let i = 0;
            i < 200 &&
            !toolText(await host.callTool({ name: "test_update_watched_resource", arguments: {} })).includes(
              "no subscriber"
            );
            i++
          ) {
            await new Promise((resolve) => setTimeout(resolve, 10))
          }
        })
        assert.include(
          toolText(yield* Effect.promise(() => host.callTool({ name: "test_update_watched_resource", arguments: {} }))),
          "no subscriber"
        )
        assert.lengthOf(gateway.deps.hosts.all(), 0)
      }),
    60_000
  )
})

describe("the 2026-07-28 front over stdio", () => {
  it.live(
    "the bin's stdio front serves an SDK 2.4 client in either era (serveStdio picks it from the first message)",
    () =>
      Effect.gen(function*() {
        const { dir, writeConfig } = cliIn("interlock-modern-stdio-")
        const file = writeConfig("interlock.config.json", {
          servers: { echo: echoServer },
          policy: { default: "allow" },
          audit: { path: ":memory:" }
        })
        for (const era of ["modern", "legacy"] as const) {
          const client = yield* stdioClient(
            NODE,
            ["--conditions=@interlock/source", BIN, "serve", "--stdio", "--config", file],
            era,
            dir
          )
          assert.strictEqual(client.getProtocolEra(), era)
          assert.include((yield* Effect.promise(() => client.listTools())).tools.map((t) => t.name), "echo")
          assert.strictEqual(
            toolText(
              yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { text: `over stdio, ${era}` } }))
            ),
            `over stdio, ${era}`
          )
        }
      }),
    60_000
  )

  it.live(
    "subscriptions/listen over stdio: the listened resource is followed downstream while the subscription is open",
    () =>
      Effect.gen(function*() {
        const { dir, writeConfig } = cliIn("interlock-modern-stdio-listen-")
        const file = writeConfig("interlock.config.json", {
          servers: { conformance: LEGACY_CONFORMANCE },
          policy: { default: "allow" },
          audit: { path: ":memory:" }
        })
        const client = yield* stdioClient(
          NODE,
          ["--conditions=@interlock/source", BIN, "serve", "--stdio", "--config", file],
          "modern",
          dir
        )
        const { seen, until } = notified(client, [
          "notifications/resources/updated",
          "notifications/tools/list_changed"
        ])
        yield* Effect.promise(() => client.listResources())
        const update = () => client.callTool({ name: "test_update_watched_resource", arguments: {} }).then(toolText)
        assert.include(yield* Effect.promise(update), "no subscriber")
        const subscription = yield* Effect.promise(() =>
          client.listen({ toolsListChanged: true, resourceSubscriptions: ["test://watched-resource"] })
        )
        // The listen is acknowledged once the resource is followed downstream.
        assert.include(yield* Effect.promise(update), "subscriber notified")
        yield* Effect.promise(() => until("notifications/resources/updated"))
        yield* Effect.promise(() => client.callTool({ name: "test_change_lists", arguments: {} }))
        yield* Effect.promise(() => until("notifications/tools/list_changed"))
        assert.strictEqual(
          (seen.find((n) => n.method === "notifications/resources/updated")!.params as { uri: string }).uri,
          "test://watched-resource"
        )
        yield* Effect.promise(() => subscription.close())
        yield* Effect.promise(async () => {
          for (let i = 0; i < 200 && !(await update()).includes("no subscriber"); i++) {
            await new Promise((resolve) => setTimeout(resolve, 10))
          }
        })
        assert.include(
          yield* Effect.promise(update),
          "no subscriber",
          "the closed listen released the downstream subscription"
        )
      }),
    60_000
  )
})
