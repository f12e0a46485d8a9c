/**
 * How the HTTP face routes, on effect/http: a path no route serves is 404 behind the console's
 * guard; paths match as written (no case folding, no trailing or doubled slash); the guard answers
 * before a route reads the body; the console's API names the bad field of a body or query.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { connect } from "node:net"
import { startGateway } from "./e2e.ts"

const ENV = { ALICE: "alice-token-0001", CONSOLE: "console-token-0002" }
const CONFIG = { servers: {}, listen: { principals: { alice: { token: "env:ALICE" } }, consoleToken: "env:CONSOLE" } }
const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
})
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" }

const request = (base: string, path: string, init: RequestInit & { readonly token?: string } = {}) =>
  Effect.promise(async () => {
    const headers = {
      ...(init.headers as Record<string, string> | undefined),
      ...(init.token === undefined ? {} : { authorization: `Bearer ${init.token}` })
    }
    const res = await fetch(`${base.replace(/\/$/, "")}${path}`, { ...init, headers })
    return { status: res.status, type: res.headers.get("content-type"), text: await res.text() }
  })

/**
 * Sends only the head of a request that announces a large body, and reads what comes back before any body byte is sent.
 */
const headOnly = (port: number, path: string) =>
  Effect.promise(() =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.write(
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ` +
            `10000000\r\n\r\n`
        )
      })
      let answer = ""
      socket.on("data", (chunk) => {
        answer += chunk.toString("latin1")
        if (answer.includes("\r\n\r\n")) {
          socket.destroy()
          resolve(answer.slice(0, answer.indexOf("\r\n")))
        }
      })
      socket.on("error", reject)
    })
  )

describe("HTTP routing", () => {
  it.live(
    "a path no route serves is 404 behind the console's guard, and paths match exactly",
    () =>
      Effect.gen(function*() {
        const { http } = yield* startGateway(CONFIG, ENV)
        const base = http.consoleUrl
        assert.strictEqual((yield* request(base, "/nope")).status, 401, "the guard answers before the 404")
        const missing = yield* request(base, "/nope", { token: ENV.ALICE })
        assert.deepStrictEqual([missing.status, missing.type, JSON.parse(missing.text)], [404, "application/json", {
          error: "Not found"
        }])
        for (const path of ["/MCP", "/mcp/", "//mcp", "/mcp/x"]) {
          const answer = yield* request(base, path, {
            method: "POST",
            headers: MCP_HEADERS,
            body: INIT,
            token: ENV.ALICE
          })
          assert.strictEqual(answer.status, 404, path)
        }
        // The console token is the console's: it opens no MCP session by any spelling of the path.
        assert.strictEqual(
          (yield* request(base, "/mcp", { method: "POST", headers: MCP_HEADERS, body: INIT, token: ENV.CONSOLE }))
            .status,
          401
        )
        assert.strictEqual(
          (yield* request(base, "//mcp", { method: "POST", headers: MCP_HEADERS, body: INIT, token: ENV.CONSOLE }))
            .status,
          404
        )
        assert.strictEqual((yield* request(base, "/metrics", { method: "POST", token: ENV.ALICE })).status, 404)
        const metrics = yield* request(base, "/metrics", { token: ENV.ALICE })
        assert.deepStrictEqual([metrics.status, metrics.type], [200, "text/plain; version=0.0.4"])
        assert.strictEqual((yield* request(base, "/api/nope", { token: ENV.ALICE })).status, 404)
        assert.strictEqual((yield* request(base, "/", { method: "POST", token: ENV.ALICE })).status, 404)
      }),
    60_000
  )

  it.live("a request the guard refuses is answered before any of its body is read", () =>
    Effect.gen(function*() {
      const { http } = yield* startGateway(CONFIG, ENV)
      for (const path of ["/mcp", "/claude/hook", `/api/approvals/${crypto.randomUUID()}`, "/nope"]) {
        assert.strictEqual(yield* headOnly(http.port, path), "HTTP/1.1 401 Unauthorized", path)
      }
    }), 60_000)

  it.live("the console's API answers a bad body, query or id with what was wrong", () =>
    Effect.gen(function*() {
      const { http } = yield* startGateway(CONFIG, ENV)
      const base = http.consoleUrl
      const answer = (body: string) =>
        Effect.map(
          request(base, `/api/approvals/${crypto.randomUUID()}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body,
            token: ENV.CONSOLE
          }),
          (res) => [res.status, (JSON.parse(res.text) as { param?: string }).param]
        )
      assert.deepStrictEqual(yield* answer(JSON.stringify({ decision: "allow" })), [400, "digest"])
      assert.deepStrictEqual(yield* answer(JSON.stringify({ decision: "yes", digest: "d" })), [400, "decision"])
      assert.deepStrictEqual(yield* answer("not json"), [400, "(root)"])
      assert.deepStrictEqual(yield* answer(JSON.stringify({ decision: "allow", digest: "d" })), [404, undefined])
      const query = yield* request(base, "/api/state?minutes=0", { token: ENV.CONSOLE })
      assert.deepStrictEqual([query.status, (JSON.parse(query.text) as { param?: string }).param], [400, "minutes"])
      assert.strictEqual((yield* request(base, "/api/calls/abc", { token: ENV.CONSOLE })).status, 404)
      assert.strictEqual(
        (yield* request(base, "/api/approvals/not-an-id", { method: "POST", body: "{}", token: ENV.CONSOLE })).status,
        404
      )
    }), 60_000)
})
