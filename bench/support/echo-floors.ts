/**
 * The floors of `npm run bench -- gateway` (bench/gateway.ts starts it): the echo tool alone behind HTTP, on the
 * SDK's transport or the gateway's, bare or behind one effect/http route. Run as `node bench/support/echo-floors.ts
 * PORT KIND`.
 */
import type { IncomingMessage, ServerResponse } from "node:http"

/** The SDK's McpServer serving the echo tool over Streamable HTTP, one transport per session (as the gateway does). */
const serveEchoHttp = async (port: number, kind: string): Promise<void> => {
  if (kind.endsWith("-effect")) return serveEchoEffect(port, kind)
  const { McpServer } = await import("@modelcontextprotocol/server")
  const { NodeStreamableHTTPServerTransport } = await import("@modelcontextprotocol/node")
  const { HttpSessionTransport } = await import("../../packages/gateway/src/front/http/mcp/HttpSessionTransport.ts")
  const { readBody } = await import("../../packages/gateway/src/front/http/RequestBody.ts")
  const { createServer: createHttpServer } = await import("node:http")
  type EchoTransport = {
    readonly handleRequest: (req: IncomingMessage, res: ServerResponse, body?: unknown) => unknown
  }
  const transports = new Map<string, EchoTransport>()
  const { Schema } = await import("effect")
  const inputSchema = Schema.toStandardJSONSchemaV1(Schema.toStandardSchemaV1(Schema.Struct({ text: Schema.String })))
  createHttpServer(async (req, res) => {
    // The SDK's transport reads the body itself; the gateway's is handed it parsed, as HttpFront does.
    const raw = kind === "sdk" || req.method !== "POST" ? undefined : await readBody(req, 1 << 22)
    const body = raw === undefined ? undefined : JSON.parse(raw.toString("utf8"))
    const id = req.headers["mcp-session-id"]
    const known = typeof id === "string" ? transports.get(id) : undefined
    if (known !== undefined) return known.handleRequest(req, res, body)
    const onsessioninitialized = (session: string) => void transports.set(session, transport)
    const transport = kind === "sdk"
      ? new NodeStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID(), onsessioninitialized })
      : new HttpSessionTransport({ onsessioninitialized })
    const server = new McpServer({ name: "echo-http", version: "1.0.0" })
    server.registerTool("echo", { description: "Echoes its text", inputSchema }, async ({ text }) => ({
      content: [{ type: "text", text }]
    }))
    await server.connect(transport)
    return transport.handleRequest(req, res, body)
  }).listen(port, "127.0.0.1")
}

const echoServer = async () => {
  const { McpServer } = await import("@modelcontextprotocol/server")
  const { Schema } = await import("effect")
  const inputSchema = Schema.toStandardJSONSchemaV1(Schema.toStandardSchemaV1(Schema.Struct({ text: Schema.String })))
  const server = new McpServer({ name: "echo-http", version: "1.0.0" })
  server.registerTool(
    "echo",
    { description: "Echoes its text", inputSchema },
    async ({ text }) => ({ content: [{ type: "text", text }] })
  )
  return server
}

/**
 * The echo tool behind one effect/http `/mcp` route on NodeHttpServer: the SDK's web-standard transport, or the
 * gateway's.
 */
const serveEchoEffect = async (port: number, kind: string): Promise<void> => {
  const { Effect, Layer } = await import("effect")
  const { HttpRouter, HttpServerRequest, HttpServerResponse } = await import("effect/http")
  const { NodeHttpServer, NodeHttpServerRequest } = await import("@effect/platform-node")
  const { WebStandardStreamableHTTPServerTransport } = await import("@modelcontextprotocol/server")
  const { HttpSessionTransport } = await import("../../packages/gateway/src/front/http/mcp/HttpSessionTransport.ts")
  const { readBody } = await import("../../packages/gateway/src/front/http/RequestBody.ts")
  const { createServer: createHttpServer } = await import("node:http")
  const web = new Map<string, InstanceType<typeof WebStandardStreamableHTTPServerTransport>>()
  const own = new Map<string, InstanceType<typeof HttpSessionTransport>>()
  const sdkRoute = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const body = request.method === "POST" ? yield* request.json : undefined
    const webRequest = yield* HttpServerRequest.toWeb(request)
    const id = request.headers["mcp-session-id"]
    let transport = id === undefined ? undefined : web.get(id)
    if (transport === undefined) {
      const created = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (session) => void web.set(session, created)
      })
      yield* Effect.promise(async () => (await echoServer()).connect(created))
      transport = created
    }
    const answer = transport
    return HttpServerResponse.fromWeb(
      yield* Effect.promise(() => answer.handleRequest(webRequest, { parsedBody: body }))
    )
  })
  const ownRoute = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const req = NodeHttpServerRequest.toIncomingMessage(request) as IncomingMessage
    const res = NodeHttpServerRequest.toServerResponse(request) as ServerResponse
    const raw = request.method === "POST" ? yield* Effect.promise(() => readBody(req, 1 << 22)) : undefined
    const body = raw === undefined ? undefined : JSON.parse(raw.toString("utf8"))
    const id = request.headers["mcp-session-id"]
    let transport = id === undefined ? undefined : own.get(id)
    if (transport === undefined) {
      const created = new HttpSessionTransport({ onsessioninitialized: (session) => void own.set(session, created) })
      yield* Effect.promise(async () => (await echoServer()).connect(created))
      transport = created
    }
    transport.handleRequest(req, res, body)
    yield* Effect.callback<void>((resume) => {
      if (res.writableEnded) return resume(Effect.void)
      res.once("finish", () => resume(Effect.void))
    })
    return HttpServerResponse.empty()
  })
  const app = HttpRouter.add("*", "/mcp", kind === "sdk-web-effect" ? sdkRoute : ownRoute)
  const server = HttpRouter.serve(app, { disableLogger: true }).pipe(
    Layer.provide(NodeHttpServer.layer(createHttpServer, { port, host: "127.0.0.1" }))
  )
  await Effect.runPromise(Layer.launch(server))
}

await serveEchoHttp(Number(process.argv[2]), process.argv[3] ?? "sdk")
