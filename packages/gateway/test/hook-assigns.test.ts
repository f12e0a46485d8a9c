/**
 * What a configured hook finds in `ctx.assigns` (the gateway README's hook surface): the host's
 * client info under `interlock/hostClient` in both eras, and a 2026-07-28 request's answers and
 * state under `interlock.hostInput`, on a tool call; nothing of the gateway's own.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { echoServer, startGateway } from "./e2e.ts"
import { modernHttpClient } from "./modern-wire.ts"

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

describe("the assigns a hook sees", () => {
  it.live(
    "the host's client in both eras, and a 2026-07-28 request's input, and no other key",
    () =>
      Effect.gen(function*() {
        const seen: Array<Readonly<Record<string, unknown>>> = []
        const record = (_input: unknown, ctx: { readonly assigns: Readonly<Record<string, unknown>> }) => {
          seen.push(ctx.assigns)
          return { _tag: "Continue" } as const
        }
        const { http } = yield* startGateway({
          servers: { echo: echoServer },
          policy: { default: "allow" },
          hooks: { preToolCall: [{ id: "record", match: "*", run: record }] }
        })
        const legacy = yield* legacyHttpClient(http.mcpUrl, "desk-host")
        yield* Effect.promise(() => legacy.callTool({ name: "echo", arguments: { text: "hi" } }))
        const modern = yield* modernHttpClient(http.mcpUrl, { name: "modern-desk" })
        yield* Effect.promise(() => modern.callTool({ name: "echo", arguments: { text: "hi" } }))
        assert.lengthOf(seen, 2)
        assert.deepStrictEqual(seen[0], { "interlock/hostClient": { name: "desk-host", version: "3.1.4" } })
        assert.deepStrictEqual(Object.keys(seen[1]).sort(), ["interlock.hostInput", "interlock/hostClient"])
        assert.deepStrictEqual(seen[1]["interlock/hostClient"], { name: "modern-desk", version: "2.0.0" })
        const input = seen[1]["interlock.hostInput"] as Record<string, unknown>
        assert.deepStrictEqual([input.inputResponses, input.requestState], [{}, undefined])
      }),
    60_000
  )
})
