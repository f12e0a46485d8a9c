import { assert, describe, it } from "@effect/vitest"
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { echoServer, httpClient, startGateway } from "./e2e.ts"

const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
})

describe("HttpFront sessions", () => {
  it.live(
    "an initialize the transport turns down leaves no host behind; DELETE ends a session and its host",
    () =>
      Effect.gen(function*() {
        const { gateway, http } = yield* startGateway({ servers: { echo: echoServer }, policy: { default: "allow" } })
        const hosts = gateway.deps.hosts
        const post = (headers: Record<string, string>) =>
          Effect.promise(() => fetch(http.mcpUrl, { method: "POST", headers, body: INIT }).then((res) => res.status))
        assert.strictEqual(yield* post({ "content-type": "application/json", accept: "application/json" }), 406)
        assert.strictEqual(
          yield* post({ "content-type": "text/plain", accept: "application/json, text/event-stream" }),
          415
        )
        assert.strictEqual(hosts.all().length, 0)
        const client = yield* httpClient(http.mcpUrl)
        assert.strictEqual(hosts.all().length, 1)
        yield* Effect.promise(() => (client.transport as StreamableHTTPClientTransport).terminateSession())
        assert.strictEqual(hosts.all().length, 0)
      }),
    60_000
  )
})
