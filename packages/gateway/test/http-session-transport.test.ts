/**
 * HttpSessionTransport with a real SDK server and hosts: plain JSON or event-stream answers, server requests,
 * bad requests and cancellation. http-session-resume.test.ts has its resumable streams.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "node:http"

import {
  ACCEPT,
  call,
  connect,
  INIT,
  raw,
  rawSession,
  serve,
  serveWith,
  stepsWithProgress
} from "./http-session-server.ts"

describe("HttpSessionTransport", () => {
  it.live("a call whose answer comes first is answered as plain JSON; a notification gets 202", () =>
    Effect.gen(function*() {
      const { url } = yield* serve
      const headers = yield* rawSession(url)
      const answer = yield* raw(url, "POST", headers, call(1, "echo"))
      assert.strictEqual(answer.status, 200)
      assert.strictEqual(answer.type, "application/json")
      assert.deepStrictEqual(JSON.parse(answer.body), {
        jsonrpc: "2.0",
        id: 1,
        result: { content: [{ type: "text", text: "hi" }] }
      })
      const client = yield* connect((yield* serve).url)
      const echoed = yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { text: "hello" } }))
      assert.deepStrictEqual(echoed.content, [{ type: "text", text: "hello" }])
    }))

  it.live("progress sent before the answer turns it into an event stream, in order, ending with the answer", () =>
    Effect.gen(function*() {
      const { url } = yield* serve
      const headers = yield* rawSession(url)
      const answer = yield* raw(url, "POST", headers, call(2, "steps", { progressToken: "t" }))
      assert.strictEqual(answer.type, "text/event-stream")
      const events = answer.body.split("\n\n").filter((block) => block.startsWith("event: message")).map((block) =>
        JSON.parse(block.split("data: ")[1])
      )
      assert.deepStrictEqual(events.map((event) => event.params?.progress ?? `result ${event.id}`), [
        1,
        2,
        3,
        "result 2"
      ])
      const client = yield* connect((yield* serve).url)
      const { result, seen } = yield* stepsWithProgress(client)
      assert.deepStrictEqual(result.content, [{ type: "text", text: "done" }])
      assert.deepStrictEqual(seen, [1, 2, 3])
    }))

  it.live("a call still running at a keep-alive tick is answered as an event stream: the tick, then the answer", () =>
    Effect.gen(function*() {
      const { url } = yield* serveWith({ keepAliveMs: 40 })
      const headers = yield* rawSession(url)
      const answer = yield* raw(url, "POST", headers, call(3, "wait"))
      assert.strictEqual(answer.type, "text/event-stream")
      const blocks = answer.body.split("\n\n").filter((block) => block.length > 0)
      assert.strictEqual(blocks[0], ": keepalive")
      const last = JSON.parse(blocks[blocks.length - 1].split("data: ")[1])
      assert.deepStrictEqual(last, { jsonrpc: "2.0", id: 3, result: { content: [{ type: "text", text: "waited" }] } })
    }))

  it.live("a server request during a call goes down the call's stream, and the host's answer completes the call", () =>
    Effect.gen(function*() {
      const { url } = yield* serve
      const client = yield* connect(url, { elicitation: { form: {} } })
      const asked: Array<string> = []
      client.setRequestHandler("elicitation/create", async (request) => {
        asked.push(String((request.params as { message?: unknown }).message))
        return { action: "decline" }
      })
      const result = yield* Effect.promise(() => client.callTool({ name: "ask", arguments: {} }))
      assert.deepStrictEqual(result.content, [{ type: "text", text: "decline" }])
      assert.deepStrictEqual(asked, ["continue?"])
    }))

  it.live("bad requests get the SDK transport's statuses and messages", () =>
    Effect.gen(function*() {
      const { url } = yield* serve
      const before = yield* raw(url, "POST", ACCEPT, call(1, "echo"))
      assert.deepInclude(before, { status: 400 })
      assert.include(before.body, "Server not initialized")
      const headers = yield* rawSession(url)
      const cases: Array<[string, Record<string, string>, unknown, number, string]> = [
        ["POST", { ...headers, accept: "application/json" }, call(1, "echo"), 406, "Not Acceptable"],
        ["POST", { ...headers, "content-type": "text/plain" }, call(1, "echo"), 415, "Unsupported Media Type"],
        ["POST", headers, Array.from({ length: 101 }, (_, i) => call(i, "echo")), 400, "Batch must not exceed 100"],
        ["POST", headers, { jsonrpc: "1.0", id: 1 }, 400, "Invalid JSON-RPC message"],
        ["POST", headers, INIT, 400, "Server already initialized"],
        ["POST", { ...headers, "mcp-session-id": "someone-else" }, call(1, "echo"), 404, "Session not found"],
        [
          "POST",
          { ...headers, "mcp-protocol-version": "1999-01-01" },
          call(1, "echo"),
          400,
          "Unsupported protocol version: 1999-01-01"
        ],
        ["PUT", headers, undefined, 405, "Method not allowed"],
        ["GET", { ...headers, accept: "application/json" }, undefined, 406, "Client must accept text/event-stream"]
      ]
      for (const [method, sent, body, status, message] of cases) {
        const answer = yield* raw(url, method, sent, body)
        assert.strictEqual(answer.status, status, `${method} ${message}: ${answer.body}`)
        assert.include(answer.body, message)
      }
      const { "mcp-session-id": _id, ...noSession } = headers
      const missing = yield* raw(url, "POST", noSession, call(1, "echo"))
      assert.strictEqual(missing.status, 400)
      assert.include(missing.body, "Mcp-Session-Id header is required")
      // The session still serves after all that; DELETE ends it, and it is gone afterwards.
      assert.strictEqual((yield* raw(url, "POST", headers, call(3, "echo"))).status, 200)
      assert.strictEqual((yield* raw(url, "DELETE", headers)).status, 200)
      const gone = yield* raw(url, "POST", headers, call(4, "echo"))
      assert.strictEqual(gone.status, 404)
    }))

  it.live("one standalone stream per session; closing the transport ends it and every open call's stream", () =>
    Effect.gen(function*() {
      const { url, transport, hanging } = yield* serve
      const headers = yield* rawSession(url)
      const stream = yield* Effect.promise(() => fetch(url, { headers: { ...headers, accept: "text/event-stream" } }))
      assert.strictEqual(stream.status, 200)
      assert.strictEqual(stream.headers.get("content-type"), "text/event-stream")
      const second = yield* raw(url, "GET", { ...headers, accept: "text/event-stream" })
      assert.strictEqual(second.status, 409)
      const open = raw(url, "POST", headers, call(5, "hang")).pipe(Effect.runPromise)
      yield* Effect.promise(() => hanging)
      yield* Effect.promise(() => transport.close())
      const ended = yield* Effect.promise(() => open)
      assert.strictEqual(ended.status, 200)
      assert.strictEqual(ended.type, "text/event-stream")
      assert.notInclude(ended.body, "result")
      assert.strictEqual(yield* Effect.promise(() => stream.text()), "")
    }))

  it.live("a call the host cancels stops holding its POST: the stream ends with no answer and nothing stays open", () =>
    Effect.gen(function*() {
      const { url, transport, hanging, hangCancelled } = yield* serve
      const headers = yield* rawSession(url)
      const open = raw(url, "POST", headers, call(5, "hang")).pipe(Effect.runPromise)
      yield* Effect.promise(() => hanging)
      assert.isTrue(transport.busy)
      const cancel = yield* raw(url, "POST", headers, {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 5, reason: "host gave up" }
      })
      assert.strictEqual(cancel.status, 202)
      assert.strictEqual(yield* Effect.promise(() => hangCancelled), 5)
      const ended = yield* Effect.promise(() => open)
      assert.strictEqual(ended.status, 200)
      assert.notInclude(ended.body, "result")
      assert.isFalse(transport.busy)
    }))

  it.live("a host that closes a call's POST before the answer cancels the call (no event log could deliver it)", () =>
    Effect.gen(function*() {
      const { url, transport, hanging, hangCancelled } = yield* serve
      const headers = yield* rawSession(url)
      const req = request(url, { method: "POST", headers })
      req.on("error", () => undefined)
      req.end(JSON.stringify(call(6, "hang")))
      yield* Effect.promise(() => hanging)
      req.destroy()
      assert.strictEqual(yield* Effect.promise(() => hangCancelled), 6)
      assert.isFalse(transport.busy)
    }))
})
