import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { request } from "node:http"
import { echoServer, everythingServer, httpClient, startGateway } from "./e2e.ts"

const text = (result: unknown): string =>
  ((result as { content: Array<{ type: string; text?: string }> }).content ?? []).map((block) => block.text ?? "").join(
    ""
  )

/** A raw HTTP request to the gateway, with any headers (Host included). */
const raw = (url: string, options: { method?: string; headers?: Record<string, string>; body?: string | Buffer }) =>
  Effect.promise(() =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(url, { method: options.method ?? "POST", headers: options.headers }, (res) => {
        let body = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => (body += chunk))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
      })
      req.on("error", reject)
      req.end(options.body)
    })
  )

const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" }
const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
})

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
      assert.deepStrictEqual(rows.map((row) => `${row.server}/${row.tool}:${row.outcome}`), [
        "everything/get-env:denied",
        "echo/echo:ok"
      ])
    }), 60_000)

  it.live(
    "one server with namespace auto passes names through; progress reaches the host",
    () =>
      Effect.gen(function*() {
        const { http } = yield* startGateway({ servers: { echo: echoServer }, policy: { default: "allow" } })
        const client = yield* httpClient(http.mcpUrl)
        const { tools } = yield* Effect.promise(() => client.listTools())
        assert.include(tools.map((tool) => tool.name), "slow")
        const seen: Array<number> = []
        const result = yield* Effect.promise(() =>
          client.callTool({ name: "slow", arguments: { ms: 200, steps: 4 } }, {
            onprogress: (p) => void seen.push(p.progress)
          })
        )
        assert.strictEqual(text(result), "slept 200")
        // The last notification is written just before the answer, and the SDK client between the
        // gateway and the server sometimes handles it after the answer and drops it (see @interlock/mcp).
        assert.isAtLeast(seen.length, 3)
        assert.deepStrictEqual(seen, [1, 2, 3, 4].slice(0, seen.length))
      }),
    60_000
  )

  it.live("pinTools: a tool whose definition changed after it was pinned is denied", () =>
    Effect.gen(function*() {
      const { gateway, http } = yield* startGateway({
        servers: { echo: echoServer },
        policy: { default: "allow" },
        pinTools: true
      })
      const client = yield* httpClient(http.mcpUrl)
      yield* Effect.promise(() => client.listTools())
      assert.strictEqual(
        text(yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { text: "before" } }))),
        "before"
      )
      yield* Effect.promise(() => client.callTool({ name: "mutate", arguments: {} }))
      let denied: unknown
      for (let i = 0; i < 50; i++) {
        yield* Effect.promise(() => client.listTools())
        const result = yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { text: "after" } }))
        if (result.isError === true) {
          denied = result
          break
        }
        yield* Effect.sleep("50 millis")
      }
      assert.include(text(denied), "changed since it was pinned")
      const [row] = yield* gateway.store.query({ limit: 1 })
      assert.deepInclude(row, { tool: "echo", outcome: "denied", rule: "pinTools" })
    }), 60_000)

  it.live(
    "ask with no approver answering in time is denied (console route, real timeout)",
    () =>
      Effect.gen(function*() {
        const { gateway, http } = yield* startGateway({
          servers: { echo: echoServer },
          approvals: { via: "console", timeoutSeconds: 0.3 },
          policy: { default: "allow", rules: [{ match: "echo/write_file", decision: "ask" }] }
        })
        const client = yield* httpClient(http.mcpUrl)
        const result = yield* Effect.promise(() =>
          client.callTool({ name: "write_file", arguments: { path: "a", content: "b" } })
        )
        assert.isTrue(result.isError)
        assert.include(text(result), "approval denied")
        assert.strictEqual(gateway.approvals.list().length, 0)
        const [row] = yield* gateway.store.query({ limit: 1 })
        assert.strictEqual(row.approval, "deny:timeout")
      }),
    60_000
  )

  it.live("a host's cancellation interrupts the call in the gateway", () =>
    Effect.gen(function*() {
      const { gateway, http } = yield* startGateway({ servers: { echo: echoServer }, policy: { default: "allow" } })
      const client = yield* httpClient(http.mcpUrl)
      const controller = new AbortController()
      const call = client.callTool({ name: "slow", arguments: { ms: 5000 } }, { signal: controller.signal }).then(
        () => "answered",
        () => "aborted"
      )
      yield* Effect.sleep("300 millis")
      controller.abort()
      assert.strictEqual(yield* Effect.promise(() => call), "aborted")
      const started = Date.now()
      yield* gateway.drain
      assert.isBelow(Date.now() - started, 4000, "the in-flight call was interrupted, not left to run for 5 s")
    }), 60_000)

  it.live(
    "bearer tokens: unknown or missing tokens get 401 and reach no server; principals are recorded and ruled",
    () =>
      Effect.gen(function*() {
        const { gateway, http } = yield* startGateway({
          servers: { echo: echoServer },
          listen: { principals: { alice: { token: "env:ALICE" }, bob: { token: "env:BOB" } } },
          policy: { default: "deny", rules: [{ match: "echo/echo", decision: "allow", principals: ["alice"] }] }
        }, { ALICE: "alice-token-123", BOB: "bob-token-456" })
        const none = yield* raw(http.mcpUrl, { headers: JSON_HEADERS, body: INIT })
        assert.strictEqual(none.status, 401)
        const wrong = yield* raw(http.mcpUrl, {
          headers: { ...JSON_HEADERS, authorization: "Bearer nope" },
          body: INIT
        })
        assert.strictEqual(wrong.status, 401)
        assert.strictEqual((yield* raw(http.consoleUrl, { method: "GET", headers: {} })).status, 401)
        assert.strictEqual(
          (yield* raw(http.consoleUrl.replace(/\/$/, "/metrics"), { method: "GET", headers: {} })).status,
          401
        )
        const inUrl = yield* raw(`${http.mcpUrl}?token=alice-token-123`, { headers: JSON_HEADERS, body: INIT })
        assert.strictEqual(inUrl.status, 401, "a token in the URL is not accepted for /mcp")
        assert.strictEqual(gateway.hub.status("echo")?.connected, false)
        const alice = yield* httpClient(http.mcpUrl, { token: "alice-token-123" })
        const ok = yield* Effect.promise(() => alice.callTool({ name: "echo", arguments: { text: "hi" } }))
        assert.strictEqual(text(ok), "hi")
        const bob = yield* httpClient(http.mcpUrl, { token: "bob-token-456" })
        const denied = yield* Effect.promise(() => bob.callTool({ name: "echo", arguments: { text: "hi" } }))
        assert.isTrue(denied.isError)
        const rows = yield* gateway.store.query()
        assert.deepStrictEqual(rows.map((row) => `${row.principal}:${row.outcome}`), ["bob:denied", "alice:ok"])
      }),
    60_000
  )

  it.live("Host and Origin are checked against DNS rebinding", () =>
    Effect.gen(function*() {
      const { http } = yield* startGateway({ servers: { echo: echoServer }, policy: { default: "allow" } })
      const evilHost = yield* raw(http.mcpUrl, { headers: { ...JSON_HEADERS, host: "evil.example:7331" }, body: INIT })
      assert.strictEqual(evilHost.status, 403)
      const evilOrigin = yield* raw(http.mcpUrl, {
        headers: { ...JSON_HEADERS, origin: "http://evil.example" },
        body: INIT
      })
      assert.strictEqual(evilOrigin.status, 403)
      const local = yield* raw(http.mcpUrl, {
        headers: { ...JSON_HEADERS, origin: `http://localhost:${http.port}` },
        body: INIT
      })
      assert.strictEqual(local.status, 200)
    }), 60_000)

  it.live("junk JSON-RPC and oversized bodies get errors, and the gateway keeps serving", () =>
    Effect.gen(function*() {
      const { http } = yield* startGateway({ servers: { echo: echoServer }, policy: { default: "allow" } })
      const junk = yield* raw(http.mcpUrl, { headers: JSON_HEADERS, body: "{ this is not json" })
      assert.strictEqual(junk.status, 400)
      assert.strictEqual(JSON.parse(junk.body).error.code, -32700)
      const noSession = yield* raw(http.mcpUrl, {
        headers: JSON_HEADERS,
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })
      })
      assert.strictEqual(noSession.status, 400)
      const big = yield* raw(http.mcpUrl, { headers: JSON_HEADERS, body: Buffer.alloc(5 * 1024 * 1024, 0x20) })
      assert.strictEqual(big.status, 413)
      // The console's approval answer too: an oversized body is answered (400), not left hanging.
      const bigAnswer = yield* raw(http.consoleUrl.replace(/\/$/, `/api/approvals/${crypto.randomUUID()}`), {
        headers: { "content-type": "application/json" },
        body: Buffer.alloc(64 * 1024, 0x20)
      })
      assert.strictEqual(bigAnswer.status, 400)
      const client = yield* httpClient(http.mcpUrl)
      const unknown = yield* Effect.promise(() =>
        client.callTool({ name: "nope", arguments: {} }).then(() => "answered", (error: Error) => error.message)
      )
      assert.include(unknown, "not found")
      const ok = yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { text: "still here" } }))
      assert.strictEqual(text(ok), "still here")
    }), 60_000)

  it.live("ask goes to the host as an elicitation: accept allows, decline denies", () =>
    Effect.gen(function*() {
      const { gateway, http } = yield* startGateway({
        servers: { echo: echoServer },
        policy: { default: "allow", rules: [{ id: "writes", match: "echo/write_*", decision: "ask" }] },
        redact: [{ detectors: "all" }]
      })
      const client = yield* httpClient(http.mcpUrl, { capabilities: { elicitation: { form: {} } } })
      const messages: Array<string> = []
      let answer: "accept" | "decline" = "accept"
      client.setRequestHandler("elicitation/create", async (request) => {
        messages.push(String((request.params as { message?: unknown }).message))
        return answer === "accept" ? { action: "accept", content: { approve: true } } : { action: "decline" }
      })
      const allowed = yield* Effect.promise(() =>
        client.callTool({ name: "write_file", arguments: { path: "a.txt", content: "AKIAIOSFODNN7EXAMPLE" } })
      )
      assert.strictEqual(text(allowed), "wrote a.txt")
      assert.include(messages[0], "echo/write_file")
      assert.notInclude(messages[0], "AKIAIOSFODNN7EXAMPLE")
      answer = "decline"
      const denied = yield* Effect.promise(() =>
        client.callTool({ name: "write_file", arguments: { path: "b.txt", content: "x" } })
      )
      assert.isTrue(denied.isError)
      const rows = yield* gateway.store.query()
      assert.deepStrictEqual(rows.map((row) => row.approval), ["deny:elicitation:local", "allow:elicitation:local"])
    }), 60_000)

  it.live(
    "a downstream crash is restarted with backoff while the other servers keep serving",
    () =>
      Effect.gen(function*() {
        const { http } = yield* startGateway({
          servers: { echo: echoServer, everything: everythingServer },
          policy: { default: "allow" }
        })
        const client = yield* httpClient(http.mcpUrl)
        const before = text(yield* Effect.promise(() => client.callTool({ name: "echo__pid", arguments: {} })))
        const crashed = yield* Effect.promise(() => client.callTool({ name: "echo__crash", arguments: {} }))
        assert.isTrue(crashed.isError)
        const other = yield* Effect.promise(() =>
          client.callTool({ name: "everything__echo", arguments: { message: "alive" } })
        )
        assert.include(text(other), "alive")
        const after = text(yield* Effect.promise(() => client.callTool({ name: "echo__pid", arguments: {} })))
        assert.match(after, /^\d+$/)
        assert.notStrictEqual(after, before)
      }),
    60_000
  )

  it.live("shutdown drains in-flight calls before the servers stop", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const { http } = yield* Scope.provide(
        startGateway({ servers: { echo: echoServer }, policy: { default: "allow" } }),
        scope
      )
      const client = yield* httpClient(http.mcpUrl)
      const pending = client.callTool({ name: "slow", arguments: { ms: 1500 } })
      yield* Effect.sleep("300 millis")
      const closing = Effect.runPromise(Scope.close(scope, Exit.void))
      const result = yield* Effect.promise(() => pending)
      assert.strictEqual(text(result), "slept 1500")
      yield* Effect.promise(() => closing)
    }), 60_000)
})
