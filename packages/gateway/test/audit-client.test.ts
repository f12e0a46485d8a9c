/**
 * Every audit row names the host's MCP client as it named itself (`name/version`): from initialize
 * for a 2025 host, from each request's `_meta` for a 2026-07-28 host, over HTTP and over the bin's
 * stdio front, on calls that ran and on calls of tools that do not exist. A name the host chooses is cut
 * to 200 characters. (A call of an unknown tool fails in core, after the door: its row is `failed`.)
 */
import { assert, describe, it } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import * as path from "node:path"
import * as SqliteAuditStore from "../src/audit/SqliteAuditStore.ts"
import { BIN, cliIn } from "./cli-process.ts"
import { echoServer, NODE, startGateway } from "./e2e.ts"
import { modernHttpClient, stdioClient } from "./modern-wire.ts"

/** A 2025 SDK client named `name` over HTTP; closed with the scope. */
const legacyHttpClient = (url: string, name: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name, version: "3.1.4" })
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      return client
    }),
    (client) => Effect.promise(() => client.close().catch(() => undefined))
  )

/** One call that runs and one the door refuses (an unknown tool). */
const callTwice = (client: Client, tool: string) =>
  Effect.promise(async () => {
    await client.callTool({ name: tool, arguments: { text: "hi" } })
    await client.callTool({ name: "no-such-tool", arguments: {} }).catch(() => undefined)
  })

describe("the audit row's client", () => {
  it.live(
    "over HTTP: a 2025 host's from initialize, a 2026-07-28 host's from its request, a long name cut",
    () =>
      Effect.gen(function*() {
        const { gateway, http } = yield* startGateway({ servers: { echo: echoServer }, policy: { default: "allow" } })
        yield* callTwice(yield* legacyHttpClient(http.mcpUrl, "desk-host"), "echo")
        yield* callTwice(yield* modernHttpClient(http.mcpUrl, { name: "modern-desk" }), "echo")
        const long = `${"x".repeat(10_000)}\u202e`
        yield* callTwice(yield* legacyHttpClient(http.mcpUrl, long), "echo")
        const rows = [...(yield* gateway.store.query())].reverse()
        assert.deepStrictEqual(rows.map((row) => [row.tool, row.outcome, row.client]), [
          ["echo", "ok", "desk-host/3.1.4"],
          ["no-such-tool", "failed", "desk-host/3.1.4"],
          ["echo", "ok", "modern-desk/2.0.0"],
          ["no-such-tool", "failed", "modern-desk/2.0.0"],
          ["echo", "ok", `${"x".repeat(200)}/3.1.4`],
          ["no-such-tool", "failed", `${"x".repeat(200)}/3.1.4`]
        ])
      }),
    60_000
  )

  it.live("over the bin's stdio front, in either era, into the audit file", () =>
    Effect.gen(function*() {
      const { dir, writeConfig } = cliIn("interlock-audit-client-")
      const db = path.join(dir, "audit.db")
      const file = writeConfig("interlock.config.json", {
        servers: { echo: echoServer },
        policy: { default: "allow" },
        audit: { path: db }
      })
      for (const era of ["legacy", "modern"] as const) {
        yield* Effect.scoped(Effect.gen(function*() {
          const client = yield* stdioClient(
            NODE,
            ["--conditions=@interlock/source", BIN, "serve", "--stdio", "--config", file],
            era,
            dir
          )
          yield* callTwice(client, "echo")
        }))
      }
      const store = yield* SqliteAuditStore.scoped(db)
      const rows = [...(yield* store.query())].reverse()
      assert.deepStrictEqual(rows.map((row) => [row.tool, row.outcome, row.client]), [
        ["echo", "ok", "legacy-host/1.0.0"],
        ["no-such-tool", "failed", "legacy-host/1.0.0"],
        ["echo", "ok", "modern-host/2.0.0"],
        ["no-such-tool", "failed", "modern-host/2.0.0"]
      ])
    }), 60_000)
})
