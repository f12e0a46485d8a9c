import { assert, describe, it } from "@effect/vitest"
import { Interlock, ToolCalls } from "@interlock/core"
import { toNodeHandler } from "@modelcontextprotocol/node"
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server"
import { Effect, Layer, Redacted, Schedule, Schema } from "effect"
import { spawn } from "node:child_process"
import { createServer, type IncomingMessage } from "node:http"
import { McpHub, McpTransport } from "../src/index.ts"
import { exerciseEverything } from "./everything.ts"
import { standard, textResult } from "./fixtures/schema.ts"
import { allowAll, descendants, EVERYTHING, NODE, noProcessLeft } from "./helpers.ts"

const LOOPBACK = new URL("./fixtures/loopback.ts", import.meta.url).pathname

/** server-everything in Streamable HTTP mode on a free loopback port, ended with the scope. */
const everythingOverHttp = Effect.acquireRelease(
  Effect.callback<{ url: string; pid: number }, Error>((resume) => {
    const child = spawn(NODE, ["--import", LOOPBACK, EVERYTHING, "streamableHttp"], {
      env: { ...process.env, PORT: "0" },
      stdio: ["ignore", "ignore", "pipe"]
    })
    let seen = ""
    child.stderr.on("data", (chunk: Buffer) => {
      seen += chunk.toString()
      const port = /LISTENING (\d+)/.exec(seen)?.[1]
      if (port !== undefined) resume(Effect.succeed({ url: `http://127.0.0.1:${port}/mcp`, pid: child.pid! }))
    })
    child.once("exit", (code) => resume(Effect.fail(new Error(`server-everything exited with ${code}`))))
  }),
  ({ pid }) =>
    Effect.promise(() =>
      new Promise<void>((resolve) => {
        try {
          process.kill(pid, "SIGKILL")
        } catch {
          resolve()
        }
        const wait = () => (descendants().includes(pid) ? setTimeout(wait, 10) : resolve())
        wait()
      })
    )
)

/** An SDK 2 server (modern and legacy revisions) over HTTP on 127.0.0.1, behind a bearer check. */
const modernServer = (token: string) =>
  Effect.acquireRelease(
    Effect.promise(() => {
      const seen: Array<string | undefined> = []
      const handler = toNodeHandler(createMcpHandler(() => {
        const server = new McpServer({ name: "modern", version: "1.0.0" }, { capabilities: { tools: {} } })
        server.registerTool(
          "shout",
          { inputSchema: standard(Schema.Struct({ text: Schema.String })) },
          async ({ text }: any) => textResult(String(text).toUpperCase())
        )
        return server
      }))
      const http = createServer((req: IncomingMessage, res) => {
        seen.push(req.headers["x-tenant"] as string | undefined)
        if (req.headers.authorization !== `Bearer ${token}`) {
          res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: "invalid_token" }))
          return
        }
        void handler(req, res)
      })
      return new Promise<{ url: string; seen: Array<string | undefined>; close: () => Promise<void> }>((resolve) =>
        http.listen(0, "127.0.0.1", () => {
          const address = http.address() as { port: number }
          resolve({
            url: `http://127.0.0.1:${address.port}/mcp`,
            seen,
            close: () =>
              new Promise((done) => {
                http.close(() => done())
                http.closeAllConnections()
              })
          })
        })
      )
    }),
    (server) => Effect.promise(() => server.close())
  )

describe("Streamable HTTP", () => {
  it.live("server-everything over HTTP: calls, lists, reads, gets prompts and follows progress", () =>
    Effect.gen(function*() {
      const { url } = yield* everythingOverHttp
      yield* exerciseEverything("web").pipe(
        Effect.provide(
          Interlock.layer({ policy: allowAll }).pipe(Layer.provideMerge(McpTransport.http("web", { url })))
        )
      )
    }))

  it.live("a server that dies fails the in-flight call with a TransportError well before its deadline", () =>
    Effect.gen(function*() {
      const { url, pid } = yield* everythingOverHttp
      yield* Effect.gen(function*() {
        const calls = yield* ToolCalls
        yield* calls.callTool({ serverId: "web", name: "echo", args: { message: "up" } })
        setTimeout(() => process.kill(pid, "SIGKILL"), 300)
        const started = Date.now()
        const error = yield* Effect.flip(calls.callTool(
          { serverId: "web", name: "trigger-long-running-operation", args: { duration: 30, steps: 30 } },
          { timeout: "60 seconds" }
        ))
        assert.strictEqual(error._tag, "TransportError")
        assert.include(error.message, "the server stopped answering")
        assert.isBelow(Date.now() - started, 20_000)
        const next = yield* Effect.flip(calls.callTool({ serverId: "web", name: "echo", args: { message: "down" } }))
        assert.strictEqual(next._tag, "TransportError")
      }).pipe(Effect.provide(
        Interlock.layer({ policy: allowAll }).pipe(
          Layer.provideMerge(McpTransport.http("web", { url }, { reconnect: Schedule.recurs(0) }))
        )
      ))
    }))

  it.live(
    "a bearer token typed as Redacted and custom headers reach the server; the modern revision is negotiated, " +
      "or legacy when asked",
    () =>
      Effect.gen(function*() {
        const server = yield* modernServer("s3cret")
        const good = McpTransport.http("modern", {
          url: server.url,
          bearer: Redacted.make("s3cret"),
          headers: { "x-tenant": "acme" }
        })
        yield* Effect.gen(function*() {
          const calls = yield* ToolCalls
          const result = yield* calls.callTool({ serverId: "modern", name: "shout", args: { text: "hey" } })
          assert.strictEqual(result.text, "HEY")
          assert.strictEqual((yield* McpHub).status("modern")?.era, "modern/2026-07-28")
          assert.include(server.seen, "acme")
        }).pipe(Effect.provide(Interlock.layer({ policy: allowAll }).pipe(Layer.provideMerge(good))))
        const legacy = McpTransport.http("modern", { url: server.url, bearer: Redacted.make("s3cret") }, {
          protocol: "legacy"
        })
        yield* Effect.gen(function*() {
          const calls = yield* ToolCalls
          assert.strictEqual(
            (yield* calls.callTool({ serverId: "modern", name: "shout", args: { text: "old" } })).text,
            "OLD"
          )
          assert.match((yield* McpHub).status("modern")?.era ?? "", /^legacy\/2025-/)
        }).pipe(Effect.provide(Interlock.layer({ policy: allowAll }).pipe(Layer.provideMerge(legacy))))
        const bad = McpTransport.http("modern", { url: server.url, bearer: Redacted.make("wrong") })
        const error = yield* Effect.flip(
          Effect.gen(function*() {
            const calls = yield* ToolCalls
            return yield* calls.callTool({ serverId: "modern", name: "shout", args: { text: "x" } })
          }).pipe(Effect.provide(Interlock.layer({ policy: allowAll }).pipe(Layer.provideMerge(bad))))
        )
        assert.strictEqual(error._tag, "TransportError")
        assert.include(error.message, "refused the credentials during initialize (HTTP 401)")
        assert.notInclude(error.message, "wrong")
      })
  )

  it.live("leaves no process behind", noProcessLeft)
})
