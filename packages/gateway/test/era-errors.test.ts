/**
 * Error codes by the host's era: a server's code passes where the host's era knows it, else the
 * nearest it knows; the gateway's resource-not-found is -32602 with the URI, which both eras read.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import * as path from "node:path"
import { hostErrorCode } from "../src/front/EraErrorCodes.ts"
import { httpClient, NODE, startGateway } from "./e2e.ts"

const metaServer = { command: NODE, args: [path.join(import.meta.dirname, "fixtures", "meta-server.ts")] }

const codeOf = (promise: Promise<unknown>) =>
  Effect.promise(() =>
    promise.then(
      () => undefined,
      (error: { code?: number; data?: unknown }) => ({ code: error.code, data: error.data })
    )
  )

describe("error codes by the host's era", () => {
  it("maps a server's code to one the host's era knows", () => {
    assert.strictEqual(hostErrorCode(-32002, "modern"), -32602)
    assert.strictEqual(hostErrorCode(-32042, "modern"), -32603)
    assert.strictEqual(hostErrorCode(-32021, "modern"), -32021)
    assert.strictEqual(hostErrorCode(-32002, "legacy"), -32002)
    assert.strictEqual(hostErrorCode(-32042, "legacy"), -32042)
    for (const code of [-32020, -32021, -32022]) assert.strictEqual(hostErrorCode(code, "legacy"), -32603)
    for (const era of ["legacy", "modern"] as const) {
      for (const code of [-32602, -32601, -32000, 7]) assert.strictEqual(hostErrorCode(code, era), code)
    }
  })

  it.live(
    "an unknown resource is -32602 with its URI to both eras (SDK 2 never emits -32002)",
    () =>
      Effect.gen(function*() {
        const { http } = yield* startGateway({ servers: { meta: metaServer }, policy: { default: "allow" } })
        const legacy = yield* httpClient(http.mcpUrl)
        assert.deepStrictEqual(yield* codeOf(legacy.readResource({ uri: "nowhere://at/all" })), {
          code: -32602,
          data: { uri: "nowhere://at/all" }
        })
        const modern = new Client({ name: "modern-host", version: "1.0.0" }, {
          capabilities: {},
          versionNegotiation: { mode: { pin: "2026-07-28" } }
        })
        yield* Effect.acquireRelease(
          Effect.promise(() => modern.connect(new StreamableHTTPClientTransport(new URL(http.mcpUrl)))),
          () => Effect.promise(() => modern.close())
        )
        const answer = yield* codeOf(modern.readResource({ uri: "nowhere://at/all" }, { cacheMode: "bypass" }))
        assert.strictEqual(answer?.code, -32602)
      }),
    60_000
  )
})
