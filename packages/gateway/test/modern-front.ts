/**
 * A stand-in for the gateway's 2026-07-28 front, for the approval tests until the real one is
 * merged: SDK 2's createMcpHandler on real HTTP (127.0.0.1, port 0), whose tools/call calls the
 * gateway's calls as FrontServer does, with the host's input under HOST_INPUT_KEY on every request
 * (InputRound.ts), and answers InputRequired `input_required`. And a 2026-07-28 SDK client whose
 * retries a test may rewrite on the wire, as a hostile host would.
 */
import type { JsonObject, Principal } from "@interlock/core"
import { Client, type ElicitResult, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { toNodeHandler } from "@modelcontextprotocol/node"
import { createMcpHandler, inputRequired, type InputRequests, Server } from "@modelcontextprotocol/server"
import { Effect, Result } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { HOST_INPUT_KEY } from "../src/calls/InputRound.ts"
import type { GatewayShape } from "../src/Gateway.ts"
import { failureToWire, toWireResult, toWireTool } from "../src/front/WireConvert.ts"

/** Serves `gateway` to 2026-07-28 hosts as `principal`, on 127.0.0.1; returns the MCP URL. Closed with the scope. */
export const modernFront = (gateway: GatewayShape, serverId: string, principal: Principal | undefined) =>
  Effect.acquireRelease(
    Effect.promise(() => {
      const { deps } = gateway
      const options = principal === undefined ? {} : { principal }
      const handler = createMcpHandler(() => {
        const server = new Server({ name: "interlock-gateway", version: deps.version }, { capabilities: { tools: {} } })
        server.setRequestHandler("tools/list", (_request, ctx) =>
          deps.run(Effect.map(deps.calls.listTools(serverId, options), (tools) => ({ tools: tools.map((tool) => toWireTool(tool, tool.name)) })), ctx.mcpReq.signal))
        server.setRequestHandler("tools/call", (request, ctx) => {
          const assigns = { [HOST_INPUT_KEY]: { inputResponses: ctx.mcpReq.inputResponses ?? {}, requestState: ctx.mcpReq.requestState<string>() } }
          // The stand-in skips the front's checks of the name and arguments (the tests send well-formed calls).
          const call = deps.calls.callTool({ serverId, name: request.params.name, args: (request.params.arguments ?? {}) as JsonObject }, { ...options, assigns })
          return deps.run(Effect.result(call), ctx.mcpReq.signal).then((result) => {
            if (Result.isSuccess(result)) return toWireResult(result.success)
            const error = result.failure
            if (error._tag === "InputRequired") return inputRequired({ inputRequests: error.inputRequests as InputRequests, requestState: error.requestState })
            const wire = failureToWire(error)
            if (wire instanceof Error) throw wire
            return wire
          })
        })
        return server
      }, { legacy: "reject" })
      const http = createServer(toNodeHandler(handler))
      return new Promise<{ readonly url: string; readonly close: () => Promise<void> }>((resolve) =>
        http.listen(0, "127.0.0.1", () =>
          resolve({
            url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
            close: () => new Promise((done) => http.close(() => done()))
          })))
    }),
    (front) => Effect.promise(front.close)
  )

/** The params of a tools/call as a host sends them (a retry carries inputResponses and requestState). */
export type CallParams = Record<string, unknown> & { readonly inputResponses?: Record<string, unknown>; readonly requestState?: string }

/** Options of {@link modernClient}. */
export interface ModernClientOptions {
  /** Answers the gateway's elicitation (the approval form); records what it was shown. */
  readonly answer: (params: { readonly message: string }) => ElicitResult
  /** Rewrites a retried tools/call (one with inputResponses) before it is sent. */
  readonly retry?: (params: CallParams) => CallParams
  /** The URL each tools/call goes to, by its round (0 for the first request); default the connect URL. */
  readonly route?: (round: number) => string
  /** A bearer token sent with every request (for the gateway's real HTTP front). */
  readonly token?: string
}

/** A 2026-07-28 SDK client of `url` that answers elicitations with `options.answer`; closed with the scope. */
export const modernClient = (url: string, options: ModernClientOptions) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "modern-host", version: "1.0.0" }, { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: "2026-07-28" } } })
      client.setRequestHandler("elicitation/create", (request) => Promise.resolve(options.answer(request.params as { readonly message: string })))
      const fetcher = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
        const body = typeof init?.body === "string" ? JSON.parse(init.body) as { method?: string; params?: CallParams } : undefined
        if (body?.method !== "tools/call" || body.params === undefined) return fetch(input, init)
        const round = body.params.inputResponses === undefined ? 0 : 1
        const params = round === 1 && options.retry !== undefined ? options.retry(body.params) : body.params
        return fetch(options.route?.(round) ?? input, { ...init, body: JSON.stringify({ ...body, params }) })
      }
      const requestInit = options.token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${options.token}` } } }
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: fetcher, ...requestInit }))
      return client
    }),
    (client) => Effect.promise(() => client.close().catch(() => undefined))
  )

/** A tools/call through a client: the result's text and error flag, or the error the client raised. */
export const callText = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.promise(() =>
    client.callTool({ name, arguments: args }).then(
      (result) => ({ isError: result.isError === true, text: (result.content as Array<{ text?: string }>).map((block) => block.text ?? "").join("") }),
      (error: unknown) => ({ isError: true, text: `client error: ${error instanceof Error ? error.message : String(error)}` })
    ))
