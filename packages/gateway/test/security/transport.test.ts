/**
 * Attacks on the HTTP transport, over real HTTP on 127.0.0.1: a page on another local port, an
 * empty batch, a flood of abandoned sessions, and one host's stuck call starving every other
 * host's sampling on the same server. Nothing may get through: no session is created past a cap
 * or from a foreign origin, and a call its host gave up is cancelled downstream.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client, type CreateMessageRequest, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { request } from "node:http"
import * as path from "node:path"
import { NODE, startGateway } from "../e2e.ts"

const stuckServer = { command: NODE, args: [path.join(import.meta.dirname, "..", "fixtures", "stuck-server.ts")] }

const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" }
const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
})

interface RawResponse {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: string
}

/** One raw HTTP request; `until` ends it early (the client goes away) once the body so far satisfies it. */
const raw = (
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; until?: (body: string) => boolean }
) =>
  Effect.promise(() =>
    new Promise<RawResponse>((resolve, reject) => {
      const req = request(url, { method: options.method ?? "POST", headers: options.headers }, (res) => {
        let body = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => {
          body += chunk
          if (options.until?.(body) === true) {
            req.destroy()
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body })
          }
        })
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      })
      req.on("error", reject)
      req.end(options.body)
    })
  )

/** A host with sampling: every sampling request it gets is noted in `seen` under its name. */
const samplingHost = (url: string, name: string, seen: Array<string>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name, version: "1.0.0" }, { capabilities: { sampling: {} } })
      client.setRequestHandler("sampling/createMessage", async (_request: CreateMessageRequest) => {
        seen.push(name)
        return { role: "assistant", content: { type: "text", text: `from ${name}` }, model: "test" }
      })
      const transport = new StreamableHTTPClientTransport(new URL(url))
      await client.connect(transport)
      return { client, transport }
    }),
    ({ client }) => Effect.promise(() => client.close().catch(() => undefined))
  )

const text = (result: unknown): string =>
  ((result as { content?: Array<{ text?: string }> }).content ?? []).map((block) => block.text ?? "").join("")

/** What the fixture server saw: the downstream ids of the stuck calls it started and of the cancellations it got. */
const record = (client: Client) =>
  Effect.map(
    Effect.promise(() => client.callTool({ name: "record", arguments: {} })),
    (result) => JSON.parse(text(result)) as { started: Array<string | number>; cancelled: Array<string | number> }
  )

/** Asks the server (as `client`) until `done` holds of what it saw; each round is a real round trip, never a sleep. */
const recordUntil = (
  client: Client,
  done: (seen: { started: Array<string | number>; cancelled: Array<string | number> }) => boolean
) =>
  Effect.gen(function*() {
    for (let round = 0; round < 2_000; round++) {
      const seen = yield* record(client)
      if (done(seen)) return seen
    }
    return yield* Effect.die(new Error("the fixture server never saw what the test waited for"))
  })

const sessionHeaders = (transport: StreamableHTTPClientTransport) => ({
  ...JSON_HEADERS,
  "mcp-session-id": transport.sessionId ?? "",
  "mcp-protocol-version": "2025-06-18"
})

const STUCK_CALL = JSON.stringify({
  jsonrpc: "2.0",
  id: 77,
  method: "tools/call",
  params: { name: "stuck", arguments: {}, _meta: { progressToken: "p" } }
})

/** Host A's stuck call over a raw POST that A closes (goes away) as soon as the call has started. */
const stuckThenHangUp = (url: string, a: StreamableHTTPClientTransport) =>
  raw(url, { headers: sessionHeaders(a), body: STUCK_CALL, until: (body) => body.includes("notifications/progress") })

interface Host {
  readonly client: Client
  readonly transport: StreamableHTTPClientTransport
}

/** How host A abandons its stuck call (B is the other host, for checks on the way). */
type Abandon = (url: string, a: Host, b: Host) => Effect.Effect<void>

/**
 * The fixture: A starts a call that never returns and abandons it; B's sampling call must then be served, and A never
 * asked.
 */
const starvation = (abandon: Abandon, listen: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const { http } = yield* startGateway({
      servers: { stuck: stuckServer },
      policy: { default: "allow" },
      callTimeoutMs: 86_400_000,
      listen
    })
    const seen: Array<string> = []
    const a = yield* samplingHost(http.mcpUrl, "A", seen)
    const b = yield* samplingHost(http.mcpUrl, "B", seen)
    yield* abandon(http.mcpUrl, a, b)
    const { started, cancelled } = yield* recordUntil(b.client, (saw) =>
      saw.started.length === 1 && saw.cancelled.length > 0)
    assert.deepStrictEqual(cancelled, started, "the server was told that A's request is cancelled")
    const sampled = yield* Effect.promise(() =>
      b.client.callTool({ name: "sample", arguments: {} })
    )
    assert.strictEqual(text(sampled), "sampled: from B")
    assert.deepStrictEqual(seen, ["B"], "A was never asked")
    return http
  })

describe("a call its host abandons is cancelled downstream, and frees the server for other hosts", () => {
  it.live(
    "an explicit notifications/cancelled",
    () =>
      Effect.scoped(starvation((_url, a) =>
        Effect.promise(async () => {
          const controller = new AbortController()
          let started: () => void = () => undefined
          const progressed = new Promise<void>((resolve) => (started = resolve))
          const call = a.client.callTool({ name: "stuck", arguments: {} }, {
            signal: controller.signal,
            onprogress: () => started()
          }).catch(() => "aborted")
          await progressed
          controller.abort()
          assert.strictEqual(await call, "aborted")
        })
      )),
    60_000
  )

  it.live(
    "a POST stream the host closes before the answer",
    () => Effect.scoped(starvation((url, a) => Effect.asVoid(stuckThenHangUp(url, a.transport)))),
    60_000
  )

  it.live("a DELETE of the session", () =>
    Effect.scoped(Effect.gen(function*() {
      let sessionId: string | undefined
      const http = yield* starvation((_url, a) =>
        Effect.promise(async () => {
          let started: () => void = () => undefined
          const progressed = new Promise<void>((resolve) => (started = resolve))
          void a.client.callTool({ name: "stuck", arguments: {} }, { onprogress: () => started() }).catch(() =>
            undefined
          )
          await progressed
          sessionId = a.transport.sessionId
          await a.transport.terminateSession()
        })
      )
      // The ended session is gone: its id gets 404.
      const gone = yield* raw(http.mcpUrl, {
        headers: { ...JSON_HEADERS, "mcp-session-id": sessionId ?? "" },
        body: STUCK_CALL
      })
      assert.strictEqual(gone.status, 404)
      assert.strictEqual(http.liveSessions(), 1)
    })), 60_000)

  it.effect(
    "an expired session (resumable streams: a closed POST alone is resumable, so it is not cancelled)",
    () =>
      Effect.gen(function*() {
        let sessionId: string | undefined
        const http = yield* starvation((url, a, b) =>
          Effect.gen(function*() {
            sessionId = a.transport.sessionId
            yield* stuckThenHangUp(url, a.transport)
            // A goes away without a DELETE (its event stream closes too).
            yield* Effect.promise(() => a.client.close())
            // The call is still in flight (A could resume its stream): B's sampling cannot be attributed.
            const refused = yield* Effect.promise(() =>
              b.client.callTool({ name: "sample", arguments: {} }).then(
                (result) => JSON.stringify(result),
                (error: Error) => error.message
              )
            )
            assert.include(refused, "several hosts have calls in flight")
            yield* TestClock.adjust("2 minutes")
          }), { resumable: true, sessionIdleSeconds: 60 })
        const gone = yield* raw(http.mcpUrl, {
          headers: { ...JSON_HEADERS, "mcp-session-id": sessionId ?? "" },
          body: STUCK_CALL
        })
        assert.strictEqual(gone.status, 404, "the expired session's host gets 404, so it re-initializes")
      }),
    60_000
  )
})

describe("a page on another local port cannot drive the gateway", () => {
  it.live(
    "an allowed origin admits its own port only, and the default is the gateway's own origin",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const configured = (yield* startGateway({
          servers: { stuck: stuckServer },
          policy: { default: "allow" },
          listen: { allowedOrigins: ["http://localhost:3000"] }
        })).http
        const otherPort = yield* raw(configured.mcpUrl, {
          headers: { ...JSON_HEADERS, origin: "http://localhost:4444" },
          body: INIT
        })
        assert.strictEqual(otherPort.status, 403)
        assert.strictEqual(otherPort.headers["mcp-session-id"], undefined)
        assert.strictEqual(configured.liveSessions(), 0, "no session was created")
        const allowed = yield* raw(configured.mcpUrl, {
          headers: { ...JSON_HEADERS, origin: "http://localhost:3000" },
          body: INIT
        })
        assert.strictEqual(allowed.status, 200)

        const own = (yield* startGateway({ servers: { stuck: stuckServer }, policy: { default: "allow" } })).http
        for (
          const origin of [
            `http://localhost:${own.port + 1}`,
            "http://localhost:3000",
            "http://127.0.0.1",
            `https://127.0.0.1:${own.port}`,
            "null"
          ]
        ) {
          const refused = yield* raw(own.mcpUrl, { headers: { ...JSON_HEADERS, origin }, body: INIT })
          assert.strictEqual(refused.status, 403, origin)
        }
        assert.strictEqual(own.liveSessions(), 0, "no session was created")
        for (const origin of [`http://127.0.0.1:${own.port}`, `http://localhost:${own.port}`]) {
          const admitted = yield* raw(own.mcpUrl, { headers: { ...JSON_HEADERS, origin }, body: INIT })
          assert.strictEqual(admitted.status, 200, origin)
        }
      })),
    60_000
  )

  it.effect("an allowed origin that is not an origin (a bare host, a path) is a config error", () =>
    Effect.gen(function*() {
      for (const [entry, at] of [["localhost", 0], ["http://localhost:3000/app", 1]] as const) {
        const error = yield* Effect.flip(
          startGateway({
            servers: { stuck: stuckServer },
            listen: { allowedOrigins: at === 0 ? [entry] : ["http://a.example", entry] }
          })
        )
        assert.include(String((error as { message?: unknown }).message ?? error), `listen.allowedOrigins[${at}]`)
      }
    }))
})

describe("an empty JSON-RPC batch is an Invalid Request", () => {
  it.live("400 with -32600, inside a session and outside one", () =>
    Effect.scoped(Effect.gen(function*() {
      const { http } = yield* startGateway({ servers: { stuck: stuckServer }, policy: { default: "allow" } })
      const outside = yield* raw(http.mcpUrl, { headers: JSON_HEADERS, body: "[]" })
      assert.strictEqual(outside.status, 400)
      assert.strictEqual(JSON.parse(outside.body).error.code, -32600)
      const init = yield* raw(http.mcpUrl, { headers: JSON_HEADERS, body: INIT })
      const session = String(init.headers["mcp-session-id"])
      const headers = { ...JSON_HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" }
      const empty = yield* raw(http.mcpUrl, { headers, body: "[]" })
      assert.strictEqual(empty.status, 400)
      assert.strictEqual(JSON.parse(empty.body).error.code, -32600)
      assert.include(JSON.parse(empty.body).error.message, "empty")
      // The session still works.
      const listed = yield* raw(http.mcpUrl, {
        headers,
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })
      })
      assert.strictEqual(listed.status, 200)
      assert.include(listed.body, "stuck")
    })), 60_000)
})

/**
 * Opens `count` sessions with raw initialize requests (abandoned at once), `concurrency` at a time; their statuses in
 * order.
 */
const floodInit = (url: string, count: number, headers: Record<string, string> = {}) =>
  Effect.forEach(
    Array.from({ length: count }, (_, i) => i),
    () => Effect.map(raw(url, { headers: { ...JSON_HEADERS, ...headers }, body: INIT }), (response) => response),
    { concurrency: 16 }
  )

describe("abandoned sessions are capped and expire", () => {
  it.effect(
    "2,000 abandoned sessions stop at the cap; after the idle expiry none is left and a new host connects",
    () =>
      Effect.gen(function*() {
        const { gateway, http } = yield* startGateway({ servers: { stuck: stuckServer }, policy: { default: "allow" } })
        const responses = yield* floodInit(http.mcpUrl, 2_000)
        const opened = responses.filter((response) => response.status === 200)
        const refused = responses.filter((response) => response.status !== 200)
        // Every host here is the anonymous principal: listen.maxSessionsPerPrincipal (100) applies first.
        assert.strictEqual(opened.length, 100)
        assert.strictEqual(http.liveSessions(), 100)
        assert.strictEqual(gateway.deps.hosts.all().length, 100)
        for (const response of refused) {
          assert.strictEqual(response.status, 429)
          assert.strictEqual(response.headers["mcp-session-id"], undefined)
          const error = JSON.parse(response.body).error
          assert.strictEqual(error.code, -32000)
          assert.include(error.message, "listen.maxSessionsPerPrincipal")
        }
        // An abandoned session's id still works until it expires, then gets 404.
        const first = String(opened[0].headers["mcp-session-id"])
        const listTools = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })
        const headers = { ...JSON_HEADERS, "mcp-session-id": first, "mcp-protocol-version": "2025-06-18" }
        assert.strictEqual((yield* raw(http.mcpUrl, { headers, body: listTools })).status, 200)
        yield* TestClock.adjust("31 minutes")
        assert.strictEqual(http.liveSessions(), 0)
        assert.strictEqual(gateway.deps.hosts.all().length, 0, "the expired sessions' front servers are gone")
        assert.strictEqual((yield* raw(http.mcpUrl, { headers, body: listTools })).status, 404)
        const fresh = yield* raw(http.mcpUrl, { headers: JSON_HEADERS, body: INIT })
        assert.strictEqual(fresh.status, 200)
      }),
    120_000
  )

  it.live(
    "the total cap and the per-principal cap: 503 and 429 naming the cap, and no session is created",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { http } = yield* startGateway({
          servers: { stuck: stuckServer },
          policy: { default: "allow" },
          listen: {
            principals: { alice: { token: "alice-token-123" }, bob: { token: "bob-token-456" } },
            maxSessions: 8,
            maxSessionsPerPrincipal: 5
          }
        })
        const alice = yield* floodInit(http.mcpUrl, 7, { authorization: "Bearer alice-token-123" })
        assert.deepStrictEqual(alice.map((response) => response.status).sort(), [200, 200, 200, 200, 200, 429, 429])
        const bob = yield* floodInit(http.mcpUrl, 5, { authorization: "Bearer bob-token-456" })
        assert.deepStrictEqual(bob.map((response) => response.status).sort(), [200, 200, 200, 503, 503])
        const full = bob.find((response) => response.status === 503)
        assert.include(JSON.parse(full?.body ?? "{}").error.message, "listen.maxSessions")
        assert.strictEqual(http.liveSessions(), 8)
        // Ending a session frees its place.
        const session = String(alice.find((response) => response.status === 200)?.headers["mcp-session-id"])
        const ended = yield* raw(http.mcpUrl, {
          method: "DELETE",
          headers: {
            ...JSON_HEADERS,
            authorization: "Bearer alice-token-123",
            "mcp-session-id": session,
            "mcp-protocol-version": "2025-06-18"
          }
        })
        assert.strictEqual(ended.status, 200)
        assert.strictEqual(http.liveSessions(), 7)
        const again = yield* floodInit(http.mcpUrl, 1, { authorization: "Bearer bob-token-456" })
        assert.strictEqual(again[0].status, 200)
      })),
    60_000
  )
})
