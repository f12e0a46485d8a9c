/**
 * A 2026-07-28 server that answers `subscriptions/listen` with a JSON body (a JSON-RPC error, or a
 * plain result) instead of an event stream: the gateway goes on without a listen stream at once,
 * so the first request through it takes the server's own time, not the listen's 30 s ack timeout.
 */
import { assert, describe, it } from "@effect/vitest"
import { toNodeHandler } from "@modelcontextprotocol/node"
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server"
import { Effect } from "effect"
import { createServer, type Server } from "node:http"
import { httpClient, startGateway } from "./e2e.ts"

/**
 * The listen answers this server gives, each JSON one written in two chunks: a JSON-RPC error, a
 * JSON result, a JSON response under another id (a server that renumbers ids), or 202 with no body.
 */
type ListenAnswer = "error" | "result" | "stray" | "accepted"

const listenBody = (answer: ListenAnswer, id: unknown): string =>
  JSON.stringify(
    answer === "error"
      ? { jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } }
      : answer === "stray"
      ? { jsonrpc: "2.0", id: 0, result: {} }
      : { jsonrpc: "2.0", id, result: { resultType: "complete" } }
  )

const build = () => {
  const server = new McpServer({ name: "no-listen", version: "1.0.0" }, {
    capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true } }
  })
  server.registerTool(
    "ping",
    { description: "Answers pong" },
    async () => ({ content: [{ type: "text", text: "pong" }] })
  )
  return server
}

/** A 2026-07-28 server on 127.0.0.1 whose `subscriptions/listen` is answered with JSON; counts the listens it got. */
const noListenServer = (answer: ListenAnswer) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly http: Server; readonly listens: () => number }>((resume) => {
      const handler = toNodeHandler(createMcpHandler(build))
      let listens = 0
      const http = createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (chunk: Buffer) => chunks.push(chunk))
        req.on("end", () => {
          const text = Buffer.concat(chunks).toString()
          const message = text === ""
            ? undefined
            : JSON.parse(text) as { readonly id?: unknown; readonly method?: unknown }
          if (message?.method !== "subscriptions/listen") return void handler(req, res, message)
          listens += 1
          if (answer === "accepted") return void res.writeHead(202).end()
          const body = listenBody(answer, message.id)
          res.writeHead(200, { "content-type": "application/json" })
          res.write(body.slice(0, 10))
          setTimeout(() => res.end(body.slice(10)), 20)
        })
      })
      http.listen(0, "127.0.0.1", () =>
        resume(
          Effect.succeed({
            url: `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`,
            http,
            listens: () => listens
          })
        ))
    }),
    ({ http }) => Effect.promise(() => new Promise<void>((done) => http.close(() => done())))
  )

describe("a 2026-07-28 server that answers subscriptions/listen with JSON", () => {
  for (const answer of ["error", "result", "stray", "accepted"] as const) {
    it.live(
      `(${answer}) the first tools/list through the gateway completes at the server's own pace`,
      () =>
        Effect.gen(function*() {
          const server = yield* noListenServer(answer)
          const { http } = yield* startGateway({
            servers: { quiet: { url: server.url } },
            policy: { default: "allow" }
          })
          const client = yield* httpClient(http.mcpUrl)
          const started = Date.now()
          const tools = yield* Effect.promise(() => client.listTools())
          const took = Date.now() - started
          assert.deepStrictEqual(tools.tools.map((tool) => tool.name), ["ping"])
          // Generous: the listen's ack timeout is 30 s; the server itself answers in milliseconds.
          assert.isBelow(took, 10_000, `the first tools/list took ${took} ms`)
          const result = yield* Effect.promise(() => client.callTool({ name: "ping", arguments: {} }))
          assert.deepStrictEqual(result.content, [{ type: "text", text: "pong" }])
          assert.isAtLeast(server.listens(), 1, "the gateway asked for a listen stream")
        }),
      60_000
    )
  }
})
