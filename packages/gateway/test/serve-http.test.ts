import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { echoServer, everythingServer, httpClient, startGateway } from "./e2e.ts"

const text = (result: unknown): string =>
  ((result as { content: Array<{ type: string; text?: string }> }).content ?? []).map((block) => block.text ?? "").join("")

describe("gateway over Streamable HTTP, fronting real stdio servers", () => {
  it.live("lists namespaced tools and calls through policy and audit", () =>
    Effect.gen(function*() {
      const { gateway, http } = yield* startGateway({
        servers: { echo: echoServer, everything: everythingServer },
        policy: {
          default: "allow",
          rules: [{ match: "everything/get-env", decision: "deny", reason: "environment is private" }]
        }
      })
      const client = yield* httpClient(http.mcpUrl)
      const { tools } = yield* Effect.promise(() => client.listTools())
      const names = tools.map((tool) => tool.name)
      assert.include(names, "echo__echo")
      assert.include(names, "everything__get-env")
      const echoed = yield* Effect.promise(() => client.callTool({ name: "echo__echo", arguments: { text: "hello" } }))
      assert.strictEqual(text(echoed), "hello")
      const denied = yield* Effect.promise(() => client.callTool({ name: "everything__get-env", arguments: {} }))
      assert.isTrue(denied.isError)
      assert.include(text(denied), "environment is private")
      const rows = yield* gateway.store.query()
      assert.deepStrictEqual(rows.map((row) => `${row.server}/${row.tool}:${row.outcome}`), ["everything/get-env:denied", "echo/echo:ok"])
    }), 60_000)
})
