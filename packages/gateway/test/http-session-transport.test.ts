import { assert, describe, it } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { McpServer } from "@modelcontextprotocol/server"
import { Effect, Schema } from "effect"
import { createServer, request } from "node:http"
import type { AddressInfo } from "node:net"
import { HttpSessionTransport, type HttpSessionTransportOptions } from "../src/front/http/mcp/HttpSessionTransport.ts"
import { readBody } from "../src/front/http/RequestBody.ts"

const object = <S extends Schema.Codec<any, any, never, never>>(schema: S) =>
  Schema.toStandardJSONSchemaV1(Schema.toStandardSchemaV1(schema))

/** A real SDK server with five tools, on one HttpSessionTransport (so one session) behind node:http on 127.0.0.1. */
const serveWith = (options: HttpSessionTransportOptions = {}) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const transport = new HttpSessionTransport(options)
      const server = new McpServer({ name: "transport-test", version: "1.0.0" })
      server.registerTool("echo", {
        description: "Echoes",
        inputSchema: object(Schema.Struct({ text: Schema.String }))
      }, async ({ text }) => ({
        content: [{ type: "text", text }]
      }))
      server.registerTool("steps", {
        description: "Reports progress, then answers",
        inputSchema: object(Schema.Struct({}))
      }, async (_args, ctx) => {
        const token = ctx.mcpReq._meta?.progressToken ?? "none"
        for (let i = 1; i <= 3; i++) {
          await ctx.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken: token, progress: i, total: 3 }
          })
        }
        return { content: [{ type: "text", text: "done" }] }
      })
      server.registerTool(
        "wait",
        { description: "Answers after a while", inputSchema: object(Schema.Struct({})) },
        async () => {
          await new Promise((resolve) => setTimeout(resolve, 150))
          return { content: [{ type: "text", text: "waited" }] }
        }
      )
      server.registerTool("pause", {
        description: "Reports progress, answers a while later",
        inputSchema: object(Schema.Struct({}))
      }, async (_args, ctx) => {
        await ctx.mcpReq.notify({
          method: "notifications/progress",
          params: { progressToken: ctx.mcpReq._meta?.progressToken ?? "none", progress: 1 }
        })
        await new Promise((resolve) => setTimeout(resolve, 300))
        return { content: [{ type: "text", text: "paused" }] }
      })
      server.registerTool("cut", {
        description: "Reports progress, closes its stream, answers later",
        inputSchema: object(Schema.Struct({}))
      }, async (_args, ctx) => {
        await ctx.mcpReq.notify({
          method: "notifications/progress",
          params: { progressToken: ctx.mcpReq._meta?.progressToken ?? "none", progress: 1 }
        })
        ctx.http?.closeSSE?.()
        await new Promise((resolve) => setTimeout(resolve, 150))
        return { content: [{ type: "text", text: "resumed" }] }
      })
      server.registerTool(
        "ask",
        { description: "Asks the host mid-call", inputSchema: object(Schema.Struct({})) },
        async (_args, ctx) => {
          const answer = await ctx.mcpReq.elicitInput({
            mode: "form",
            message: "continue?",
            requestedSchema: { type: "object", properties: {} }
          })
          return { content: [{ type: "text", text: answer.action }] }
        }
      )
      let hung: () => void = () => undefined
      const hanging = new Promise<void>((resolve) => (hung = resolve))
      let cancelled: (id: unknown) => void = () => undefined
      const hangCancelled = new Promise<unknown>((resolve) => (cancelled = resolve))
      server.registerTool(
        "hang",
        { description: "Never answers", inputSchema: object(Schema.Struct({})) },
        (_args, ctx) => {
          ctx.mcpReq.signal.addEventListener("abort", () => cancelled(ctx.mcpReq.id))
          hung()
          return new Promise(() => undefined)
        }
      )
      await server.connect(transport)
      const resumes: Array<string> = []
      const http = createServer(async (req, res) => {
        const lastEventId = req.headers["last-event-id"]
        if (typeof lastEventId === "string") resumes.push(lastEventId)
        const body = req.method === "POST" ? await readBody(req, 1 << 20) : undefined
        transport.handleRequest(
          req,
          res,
          body === undefined || body.length === 0 ? undefined : JSON.parse(body.toString("utf8"))
        )
      })
      await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
      return {
        transport,
        http,
        hanging,
        hangCancelled,
        resumes,
        url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`
      }
    }),
    ({ http, transport }) =>
      Effect.promise(async () => {
        await transport.close()
        http.closeAllConnections()
        await new Promise((resolve) => http.close(resolve))
      })
  )

const serve = serveWith()

const connect = (url: string, capabilities: Record<string, unknown> = {}) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "test-host", version: "1.0.0" }, { capabilities })
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      return client
    }),
    (client) => Effect.promise(() => client.close().catch(() => undefined))
  )

interface Answer {
  readonly status: number
  readonly type: string | undefined
  readonly body: string
}

/** A raw HTTP request: the status, content type and body the transport answered with. */
const raw = (url: string, method: string, headers: Record<string, string>, body?: unknown) =>
  Effect.promise(() =>
    new Promise<Answer>((resolve, reject) => {
      const req = request(url, { method, headers }, (res) => {
        let text = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => (text += chunk))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, type: res.headers["content-type"], body: text }))
      })
      req.on("error", reject)
      req.end(body === undefined ? undefined : JSON.stringify(body))
    })
  )

const ACCEPT = { "content-type": "application/json", accept: "application/json, text/event-stream" }
const init = (protocolVersion: string) => ({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1" } }
})
const INIT = init("2025-06-18")
const call = (id: number, name: string, meta?: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: name === "echo" ? { text: "hi" } : {}, ...(meta === undefined ? {} : { _meta: meta }) }
})

/** Initializes a session over raw HTTP at `version`; the headers its later requests carry. */
const rawSession = (url: string, version = "2025-06-18") =>
  Effect.gen(function*() {
    const answer = yield* Effect.promise(() =>
      fetch(url, { method: "POST", headers: ACCEPT, body: JSON.stringify(init(version)) })
    )
    const session = answer.headers.get("mcp-session-id")
    assert.isString(session)
    yield* Effect.promise(() => answer.text())
    const headers = { ...ACCEPT, "mcp-session-id": session as string, "mcp-protocol-version": version }
    assert.strictEqual(
      (yield* raw(url, "POST", headers, { jsonrpc: "2.0", method: "notifications/initialized" })).status,
      202
    )
    return headers
  })

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
      const seen: Array<number> = []
      const result = yield* Effect.promise(() =>
        client.callTool({ name: "steps", arguments: {} }, {
          onprogress: (progress) => void seen.push(progress.progress)
        })
      )
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

/** One server-sent event: its fields (`data` joined), comments left out. */
type Sse = Readonly<Record<string, string>>

const parseEvents = (text: string): Array<Sse> =>
  text.split("\n\n").map((block) => block.split("\n").filter((line) => line.length > 0 && !line.startsWith(":")))
    .filter((lines) => lines.length > 0).map((lines) =>
      Object.fromEntries(lines.map((line) => {
        const at = line.indexOf(":")
        return [line.slice(0, at), line.slice(at + 1).replace(/^ /, "")]
      }))
    )

/** A POST whose event stream is read as it arrives: wait for the first `count` events, or drop the connection. */
const openStream = (url: string, headers: Record<string, string>, body: unknown) =>
  Effect.promise(() =>
    new Promise<
      { readonly status: number; readonly first: (count: number) => Promise<Array<Sse>>; readonly drop: () => void }
    >((resolve, reject) => {
      const req = request(url, { method: "POST", headers }, (res) => {
        let text = ""
        let wake: () => void = () => {}
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => {
          text += chunk
          wake()
        })
        res.on("error", () => undefined)
        const first = async (count: number) => {
          while (parseEvents(text.slice(0, text.lastIndexOf("\n\n") + 2)).length < count) {
            await new Promise<void>((resolve) => (wake = resolve))
          }
          return parseEvents(text).slice(0, count)
        }
        resolve({ status: res.statusCode ?? 0, first, drop: () => req.destroy() })
      })
      req.on("error", () => undefined)
      req.once("error", reject)
      req.end(JSON.stringify(body))
    })
  )

const message = (event: Sse | undefined) => JSON.parse(event?.data ?? "null")

describe("HttpSessionTransport, resumable", () => {
  it.live("a host that drops a call's stream mid-call resumes it with Last-Event-ID: the events it missed, then the answer", () =>
    Effect.gen(function*() {
      const { url } = yield* serveWith({ resumable: true, retryMs: 50 })
      const headers = yield* rawSession(url, "2025-11-25")
      const post = yield* openStream(url, headers, call(7, "pause", { progressToken: "p" }))
      assert.strictEqual(post.status, 200)
      const [priming, progress] = yield* Effect.promise(() => post.first(2))
      assert.deepStrictEqual(Object.keys(priming).sort(), ["data", "id", "retry"])
      assert.deepInclude(priming, { retry: "50", data: "" })
      assert.deepInclude(message(progress), { method: "notifications/progress" })
      assert.isString(progress.id)
      post.drop()
      yield* Effect.sleep(50) // the retry the priming event asked for
      const get = { ...headers, accept: "text/event-stream" }
      const resumed = yield* raw(url, "GET", { ...get, "last-event-id": priming.id })
      assert.deepInclude(resumed, { status: 200, type: "text/event-stream" })
      const events = parseEvents(resumed.body)
      assert.deepStrictEqual(events.map((event) => event.id), [progress.id, events[1]?.id])
      assert.deepStrictEqual(message(events[1]), {
        jsonrpc: "2.0",
        id: 7,
        result: { content: [{ type: "text", text: "paused" }] }
      })
      // The call is over: a second resume from the progress event gets just the answer, and the stream ends.
      const again = yield* raw(url, "GET", { ...get, "last-event-id": progress.id })
      assert.deepStrictEqual(parseEvents(again.body).map(message), [message(events[1])])
    }))

  it.live("an SDK host whose call stream the server closes mid-call reconnects after the retry, resumes, and gets the answer", () =>
    Effect.gen(function*() {
      const { url, resumes } = yield* serveWith({ resumable: true, retryMs: 20 })
      const client = yield* connect(url)
      const seen: Array<number> = []
      const result = yield* Effect.promise(() =>
        client.callTool({ name: "cut", arguments: {} }, { onprogress: (progress) => void seen.push(progress.progress) })
      )
      assert.deepStrictEqual(result.content, [{ type: "text", text: "resumed" }])
      assert.deepStrictEqual(seen, [1], "the progress is not delivered twice")
      assert.lengthOf(resumes, 1)
    }))

  it.live("an unknown or malformed event id is refused with 400; resuming a stream that is still connected is a conflict", () =>
    Effect.gen(function*() {
      const { url, hanging } = yield* serveWith({ resumable: true, log: { maxEvents: 5 } })
      const headers = yield* rawSession(url, "2025-11-25")
      const get = { ...headers, accept: "text/event-stream" }
      for (const id of ["999", "abc", "-1"]) {
        const refused = yield* raw(url, "GET", { ...get, "last-event-id": id })
        assert.strictEqual(refused.status, 400, id)
        assert.include(refused.body, "Invalid event ID format")
      }
      const post = yield* openStream(url, headers, call(8, "hang"))
      const [priming] = yield* Effect.promise(() => post.first(1))
      yield* Effect.promise(() => hanging)
      const conflict = yield* raw(url, "GET", { ...get, "last-event-id": priming.id })
      assert.strictEqual(conflict.status, 409)
      assert.include(conflict.body, "Stream already has an active connection")
      // Past the log's cap the priming event is gone: resuming from it is refused like an unknown id.
      for (let i = 0; i < 5; i++) {
        assert.strictEqual((yield* raw(url, "POST", headers, call(20 + i, "echo"))).status, 200)
      }
      post.drop()
      yield* Effect.sleep(20)
      const evicted = yield* raw(url, "GET", { ...get, "last-event-id": priming.id })
      assert.strictEqual(evicted.status, 400)
    }))

  it.live("priming follows the session's negotiated version, not a contradicting header; off, a call is answered as plain JSON", () =>
    Effect.gen(function*() {
      const { url } = yield* serveWith({ resumable: true })
      const current = yield* rawSession(url, "2025-11-25")
      const answer = yield* raw(url, "POST", { ...current, "mcp-protocol-version": "2025-03-26" }, call(9, "echo"))
      assert.strictEqual(answer.type, "text/event-stream")
      const [priming, echoed] = parseEvents(answer.body)
      assert.deepInclude(priming, { retry: "1000", data: "" })
      assert.deepInclude(message(echoed), { id: 9 })
      assert.isString(echoed.id)

      const second = (yield* serveWith({ resumable: true })).url
      const older = parseEvents(
        (yield* raw(second, "POST", yield* rawSession(second, "2025-06-18"), call(10, "echo"))).body
      )
      assert.deepStrictEqual(older.map((event) => message(event).id), [10], "no priming event in a 2025-06-18 session")
      assert.isString(older[0].id)

      const off = (yield* serveWith()).url
      const plain = yield* raw(off, "POST", yield* rawSession(off, "2025-11-25"), call(11, "echo"))
      assert.strictEqual(plain.type, "application/json")
      assert.deepInclude(JSON.parse(plain.body), { id: 11 })

      // The SDK's client takes the priming events in its stride.
      const client = yield* connect((yield* serveWith({ resumable: true })).url)
      const seen: Array<number> = []
      const result = yield* Effect.promise(() =>
        client.callTool({ name: "steps", arguments: {} }, {
          onprogress: (progress) => void seen.push(progress.progress)
        })
      )
      assert.deepStrictEqual(result.content, [{ type: "text", text: "done" }])
      assert.deepStrictEqual(seen, [1, 2, 3])
    }))
})
