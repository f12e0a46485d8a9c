/**
 * The host's own capabilities and client info go with its call to a 2026-07-28 server, in place of
 * the gateway's: a server is never promised what the calling host cannot answer, and a capability
 * the gateway does not carry for that host (roots, to a 2025 host) is not promised either.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Client } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { httpClient, NODE, startGateway } from "./e2e.ts"
import { modernHttpClient } from "./modern-wire.ts"

const FIXTURE = path.join(import.meta.dirname, "fixtures", "envelope-server.ts")

/** The envelope fixture over HTTP, ended with the scope. */
const envelopeServer = (args: ReadonlyArray<string> = []) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ url: string; kill: () => void }>((resolve, reject) => {
        const child = spawn(NODE, [FIXTURE, ...args], { stdio: ["ignore", "pipe", "inherit"] })
        child.stdout.setEncoding("utf8")
        child.stdout.once("data", (line: string) =>
          resolve({
            url: `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}/mcp`,
            kill: () => child.kill()
          }))
        child.once("error", reject)
      })
    ),
    (server) => Effect.sync(() => server.kill())
  )

interface Seen {
  readonly capabilities: Record<string, unknown> | null
  readonly client: { readonly name: string; readonly version: string } | null
}

const whoami = (client: Client) =>
  Effect.promise(async (): Promise<Seen> => {
    const result = await client.callTool({ name: "whoami", arguments: {} })
    return JSON.parse((result.content as Array<{ text: string }>)[0].text) as Seen
  })

describe("the calling host's capabilities toward a 2026-07-28 server", () => {
  it.live(
    "a 2026-07-28 host's own capabilities and client info reach the server, none of the gateway's",
    () =>
      Effect.gen(function*() {
        const server = yield* envelopeServer()
        const { http } = yield* startGateway({ servers: { env: { url: server.url } }, policy: { default: "allow" } })
        const bare = yield* whoami(yield* modernHttpClient(http.mcpUrl))
        assert.deepStrictEqual(bare.capabilities, {}, "a host that declared nothing promises nothing")
        assert.deepStrictEqual(bare.client, { name: "modern-host", version: "2.0.0" })
        const full = yield* whoami(
          yield* modernHttpClient(http.mcpUrl, {
            capabilities: { elicitation: { form: {} }, sampling: {}, roots: { listChanged: true } }
          })
        )
        assert.deepStrictEqual(full.capabilities, {
          elicitation: { form: {} },
          sampling: {},
          roots: { listChanged: true }
        })
      }),
    60_000
  )

  it.live(
    "a 2025 host's initialize capabilities reach the server, less what the gateway cannot carry to it (roots)",
    () =>
      Effect.gen(function*() {
        const server = yield* envelopeServer()
        const { http } = yield* startGateway({ servers: { env: { url: server.url } }, policy: { default: "allow" } })
        const sampler = yield* whoami(yield* httpClient(http.mcpUrl, { capabilities: { sampling: {}, roots: {} } }))
        assert.deepStrictEqual(sampler.capabilities, { sampling: {} })
        assert.deepStrictEqual(sampler.client, { name: "test-host", version: "1.0.0" })
        const bare = yield* whoami(yield* httpClient(http.mcpUrl))
        assert.deepStrictEqual(bare.capabilities, {})
      }),
    60_000
  )

  it.live(
    "spoken to in a 2025 revision (protocol: legacy), a request carries no envelope: the host's capabilities stay " +
      "with the gateway's session",
    () =>
      Effect.gen(function*() {
        const server = yield* envelopeServer()
        const { http } = yield* startGateway({
          servers: { env: { url: server.url, protocol: "legacy" } },
          policy: { default: "allow" }
        })
        const seen = yield* whoami(yield* modernHttpClient(http.mcpUrl))
        // The fixture serves 2025 requests statelessly, so a request without an envelope shows no client at all.
        assert.deepStrictEqual(seen, { capabilities: null, client: null })
      }),
    60_000
  )
})
