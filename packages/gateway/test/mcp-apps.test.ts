/**
 * The MCP Apps extension (`io.modelcontextprotocol/ui`) through a real gateway: the npm App
 * servers and the app-server fixture as stdio downstreams, SDK 2 clients of both eras over the
 * HTTP front and the stdio front. A tool's `_meta.ui` and the `ui://` resources are namespaced
 * consistently, the page read through the gateway is the server's own with its CSP metadata, two
 * servers' colliding `ui://` URIs stay distinct, and an app-only tool is listed and governed like any.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Client } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { APP_MIME, appServer, basicReactServer, RESOURCE_UI, systemMonitorServer } from "./apps-fixture.ts"
import { startGateway } from "./e2e.ts"
import { recordingHttpClient, recordingModernHttpClient, recordingStdioClient } from "./leak-harness.ts"
import { SECRET_PATTERN } from "./secrets.ts"

type Gateway = Effect.Success<ReturnType<typeof startGateway>>
type Listed = {
  readonly name: string
  readonly _meta?: {
    readonly ui?: { readonly resourceUri?: string; readonly visibility?: ReadonlyArray<string>; readonly note?: string }
    readonly "ui/resourceUri"?: string
  }
}
type Entry = {
  readonly uri: string
  readonly mimeType?: string
  readonly text?: string
  readonly _meta?: Record<string, unknown>
}

/** Every host a gateway has: HTTP and stdio, each in both eras. */
const HOSTS: ReadonlyArray<readonly [string, (started: Gateway) => ReturnType<typeof recordingHttpClient>]> = [
  ["HTTP, 2025-11-25", ({ http }) => recordingHttpClient(http.mcpUrl)],
  ["HTTP, 2026-07-28", ({ http }) => recordingModernHttpClient(http.mcpUrl)],
  ["stdio, 2025-11-25", ({ gateway }) => recordingStdioClient(gateway)],
  ["stdio, 2026-07-28", ({ gateway }) => recordingStdioClient(gateway, true)]
]

const npmPage = (name: string) =>
  fs.readFileSync(
    path.join(
      import.meta.dirname,
      "..",
      "..",
      "..",
      "node_modules",
      "@modelcontextprotocol",
      name,
      "dist",
      "mcp-app.html"
    ),
    "utf8"
  )

const tools = (client: Client) => Effect.promise(async () => (await client.listTools()).tools as ReadonlyArray<Listed>)
const tool = (listed: ReadonlyArray<Listed>, name: string): Listed => {
  const found = listed.find((t) => t.name === name)
  assert.isDefined(found, name)
  return found!
}
const read = (client: Client, uri: string) =>
  Effect.promise(async () => (await client.readResource({ uri })).contents as ReadonlyArray<Entry>)
const text = (result: unknown) => ((result as { content: ReadonlyArray<{ text?: string }> }).content[0]?.text ?? "")

const NPM = {
  servers: { react: basicReactServer, monitor: systemMonitorServer },
  policy: { default: "allow" },
  // A redaction that matches nothing on these pages: it must leave them byte for byte.
  redact: [{ pattern: SECRET_PATTERN }, { detectors: "all" }]
}

describe("MCP Apps through the gateway", () => {
  it.live(
    "the npm App servers: _meta.ui points at the namespaced page, which reads back as the server's HTML, on every " +
      "front and era",
    () =>
      Effect.gen(function*() {
        const started = yield* startGateway(NPM)
        for (const [label, connect] of HOSTS) {
          const { client } = yield* connect(started)
          const listed = yield* tools(client)
          const time = tool(listed, "react__get-time")
          const uri = "ui://react__get-time/mcp-app.html"
          assert.strictEqual(time._meta?.ui?.resourceUri, uri, label)
          assert.strictEqual(time._meta?.["ui/resourceUri"], uri, `${label}: the deprecated flat key too`)
          assert.strictEqual(
            tool(listed, "monitor__get-system-info")._meta?.ui?.resourceUri,
            "ui://monitor__system-monitor/mcp-app.html",
            label
          )
          // An app-only tool is listed, its visibility intact: the host hides it from the model and calls it for the
          // app.
          assert.deepStrictEqual(tool(listed, "monitor__poll-system-stats")._meta?.ui, { visibility: ["app"] }, label)

          const resources = yield* Effect.promise(() => client.listResources())
          assert.sameMembers(
            resources.resources.map((r) => r.uri),
            [uri, "ui://monitor__system-monitor/mcp-app.html"],
            label
          )
          const [page] = yield* read(client, uri)
          assert.strictEqual(page.uri, uri, label)
          assert.strictEqual(page.mimeType, APP_MIME, label)
          assert.strictEqual(page.text, npmPage("server-basic-react"), `${label}: the server's own page, unchanged`)
          const [monitor] = yield* read(client, "ui://monitor__system-monitor/mcp-app.html")
          assert.strictEqual(monitor.text, npmPage("server-system-monitor"), label)
          // The app's own call (the host calls the app-only tool on the app's behalf) goes through like any call.
          const polled = yield* Effect.promise(() =>
            client.callTool({ name: "monitor__poll-system-stats", arguments: {} })
          )
          assert.notStrictEqual(polled.isError, true, label)
          const now = yield* Effect.promise(() => client.callTool({ name: "react__get-time", arguments: {} }))
          assert.match(text(now), /^\d{4}-\d\d-\d\dT/, label)
        }
      }),
    120_000
  )

  it.live(
    "two App servers with the same ui:// URI stay distinct, each page with its own CSP metadata",
    () =>
      Effect.gen(function*() {
        const started = yield* startGateway({
          servers: { react: basicReactServer, mine: appServer("mine", "ui://get-time/mcp-app.html") },
          policy: { default: "allow" }
        })
        for (const [label, connect] of HOSTS) {
          const { client } = yield* connect(started)
          const listed = yield* tools(client)
          const mine = tool(listed, "mine__show")._meta?.ui?.resourceUri
          const theirs = tool(listed, "react__get-time")._meta?.ui?.resourceUri
          assert.strictEqual(mine, "ui://mine__get-time/mcp-app.html", label)
          assert.strictEqual(theirs, "ui://react__get-time/mcp-app.html", label)
          assert.strictEqual(tool(listed, "mine__show")._meta?.["ui/resourceUri"], mine, label)
          const [ours] = yield* read(client, mine!)
          assert.include(ours.text, "Hello from mine", label)
          assert.deepStrictEqual(
            ours._meta,
            { ui: RESOURCE_UI },
            `${label}: CSP, permissions, domain and border pass unchanged`
          )
          const [react] = yield* read(client, theirs!)
          assert.strictEqual(react.text, npmPage("server-basic-react"), label)
          const listing = (yield* Effect.promise(() => client.listResources())).resources
          assert.deepStrictEqual(listing.find((r) => r.uri === mine)?._meta, { ui: RESOURCE_UI }, label)
          // The server's own URI names no server of the gateway: it is not found rather than guessed.
          const raw = yield* Effect.promise(() =>
            client.readResource({ uri: "ui://get-time/mcp-app.html" }).then(() => "read", (e: Error) => e.message)
          )
          assert.notStrictEqual(raw, "read", label)
          const unknown = yield* Effect.promise(() =>
            client.readResource({ uri: "ui://nobody__get-time/mcp-app.html" }).then(
              () => "read",
              (e: Error) => e.message
            )
          )
          assert.notStrictEqual(unknown, "read", label)
        }
      }),
    120_000
  )

  it.live(
    "without namespacing nothing changes: the server's ui:// URIs reach the host as they are",
    () =>
      Effect.gen(function*() {
        const started = yield* startGateway({ servers: { mine: appServer("mine") }, policy: { default: "allow" } })
        const { client } = yield* recordingHttpClient(started.http.mcpUrl)
        const show = tool(yield* tools(client), "show")
        assert.deepStrictEqual(show._meta, {
          ui: { resourceUri: "ui://app/index.html", visibility: ["model", "app"], note: "shown with none" },
          "ui/resourceUri": "ui://app/index.html"
        })
        const [page] = yield* read(client, "ui://app/index.html")
        assert.strictEqual(page.uri, "ui://app/index.html")
        assert.deepStrictEqual(page._meta, { ui: RESOURCE_UI })
      }),
    60_000
  )

  it.live(
    "a denied app-only tool stays denied when the app calls it: nothing reaches the server, and the audit has its row",
    () =>
      Effect.gen(function*() {
        const started = yield* startGateway({
          servers: { mine: appServer("mine"), other: appServer("other") },
          policy: { default: "allow", rules: [{ id: "no-app-save", match: "mine/app-save", decision: "deny" }] }
        })
        for (const [label, connect] of HOSTS) {
          const { client } = yield* connect(started)
          const denied = yield* Effect.promise(() => client.callTool({ name: "mine__app-save", arguments: {} }))
          assert.isTrue(denied.isError, label)
          assert.include(text(denied), "Interlock", label)
          const runs = yield* Effect.promise(() => client.callTool({ name: "mine__runs", arguments: {} }))
          assert.strictEqual(text(runs), "0", `${label}: the server never ran it`)
          // The same tool of another server is not covered by the rule.
          const saved = yield* Effect.promise(() => client.callTool({ name: "other__app-save", arguments: {} }))
          assert.strictEqual(text(saved), "saved", label)
        }
        const rows = (yield* started.gateway.store.query()).filter((row) =>
          row.server === "mine" && row.tool === "app-save"
        )
        assert.lengthOf(rows, HOSTS.length)
        for (const row of rows) {
          assert.strictEqual(row.outcome, "denied")
          assert.strictEqual(row.decision, "deny")
        }
      }),
    120_000
  )
})
