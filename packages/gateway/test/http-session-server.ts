/** A real SDK server on one HttpSessionTransport behind node:http, and raw and SDK hosts, for the transport's tests. */
import { assert } from "@effect/vitest"
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
export const serveWith = (options: HttpSessionTransportOptions = {}) =>
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

/** The server with the transport's default options. */
export const serve = serveWith()

/** An SDK host connected to `url`, declaring `capabilities`. */
export const connect = (url: string, capabilities: Record<string, unknown> = {}) =>
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
export const raw = (url: string, method: string, headers: Record<string, string>, body?: unknown) =>
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

/** The headers of a JSON-RPC POST that accepts JSON or an event stream. */
export const ACCEPT = { "content-type": "application/json", accept: "application/json, text/event-stream" }
/** An initialize request at `protocolVersion`. */
const init = (protocolVersion: string) => ({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1" } }
})
/** An initialize request at 2025-06-18. */
export const INIT = init("2025-06-18")
/** A tools/call request with this id, tool name and optional `_meta`. */
export const call = (id: number, name: string, meta?: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: name === "echo" ? { text: "hi" } : {}, ...(meta === undefined ? {} : { _meta: meta }) }
})

/** Initializes a session over raw HTTP at `version`; the headers its later requests carry. */
export const rawSession = (url: string, version = "2025-06-18") =>
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

/** Calls the server's `steps` tool through an SDK host; its result and the progress values the host saw. */
export const stepsWithProgress = (client: Client) =>
  Effect.promise(async () => {
    const seen: Array<number> = []
    const result = await client.callTool({ name: "steps", arguments: {} }, {
      onprogress: (progress) => void seen.push(progress.progress)
    })
    return { result, seen }
  })
