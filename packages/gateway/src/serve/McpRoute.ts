/**
 * The `/mcp` route, in both eras as the SDK classifies each request (front/http/mcp/EraRouting.ts): a 2026-07-28
 * request is served by itself (ModernRoute.ts); the rest is 2025 Streamable HTTP, one session per host, bound to
 * its principal (404 for an unknown id, 403 for another's; HttpSessions). The session's transport writes the Node
 * response itself (HttpSessionTransport.ts says why), and the route waits for its end.
 */
import { JsonText, type Principal } from "@interlock/core"
import type { Effect } from "effect"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import type { IncomingMessage, ServerResponse } from "node:http"
import { accessTokenOf, bindAccessToken } from "../credentials/AccessTokens.ts"
import { makeFrontServer } from "../front/FrontServer.ts"
import type { Caller } from "../front/http/GuardMiddleware.ts"
import { isModernRequest } from "../front/http/mcp/EraRouting.ts"
import { SessionCapReached, type SessionTable } from "../front/http/mcp/HttpSessions.ts"
import { HttpSessionTransport } from "../front/http/mcp/HttpSessionTransport.ts"
import { rpcError } from "../front/http/mcp/McpWire.ts"
import type { ModernFront } from "../front/http/mcp/ModernRoute.ts"
import { readBody } from "../front/http/RequestBody.ts"
import type { GatewayShape } from "../runtime/Gateway.ts"
import { nodeRoute } from "./NodeRoute.ts"

/** The largest request body `/mcp` accepts (bytes). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024

/** What the route needs: the gateway, its session table, and a way to have shutdown wait for a POST's answer. */
export interface McpRouteOptions {
  readonly gateway: GatewayShape
  readonly sessions: SessionTable<HttpSessionTransport>
  /** Holds shutdown until this POST response has been written. */
  readonly track: (res: ServerResponse) => void
  /** Serves 2026-07-28 requests. */
  readonly modern: ModernFront
}

/** The principal each 2025 session was opened by: its calls run as that principal object. */
const sessionPrincipals = new WeakMap<HttpSessionTransport, Principal>()

const isInitialize = (body: unknown): boolean =>
  typeof body === "object" && body !== null && !Array.isArray(body) && "method" in body && body.method === "initialize"

const serve = async (
  options: McpRouteOptions,
  req: IncomingMessage,
  res: ServerResponse,
  principal: Principal | undefined
) => {
  const { gateway, sessions } = options
  const sessionId = req.headers["mcp-session-id"]
  let parsed: unknown
  if (req.method === "POST") {
    options.track(res)
    const body = await readBody(req, MAX_BODY_BYTES)
    if (body === undefined) return rpcError(res, 413, -32600, `Request body larger than ${MAX_BODY_BYTES} bytes`)
    try {
      parsed = JsonText.parse(body.toString("utf8"))
    } catch {
      return rpcError(res, 400, -32700, "Parse error: the body is not JSON")
    }
    if (isModernRequest(req.headers, parsed)) return options.modern.serve(req, res, parsed, principal)
  }
  if (typeof sessionId === "string") {
    const entry = sessions.get(sessionId)
    if (entry === undefined) return rpcError(res, 404, -32001, "Session not found")
    if (entry.principal !== principal?.id) {
      return rpcError(res, 403, -32600, "Forbidden: the session belongs to another principal")
    }
    // A host that refreshed its access token: the session's calls exchange the one it sends now.
    const opener = sessionPrincipals.get(entry.session)
    const current = accessTokenOf(principal)
    if (opener !== undefined && opener !== principal && current !== undefined) bindAccessToken(opener, current)
    return entry.session.handleRequest(req, res, parsed)
  }
  if (req.method !== "POST" || !isInitialize(parsed)) {
    return rpcError(res, 400, -32600, "Bad Request: no session; start with an initialize request")
  }
  const reservation = sessions.reserve(principal?.id)
  if (reservation instanceof SessionCapReached) return rpcError(res, reservation.status, -32000, reservation.message)
  const transport: HttpSessionTransport = new HttpSessionTransport({
    resumable: gateway.plan.listen.resumable,
    onsessioninitialized: (id) => sessions.open(reservation, id, transport),
    onsessionclosed: (id) => sessions.remove(id)
  })
  transport.onclose = () => {
    if (transport.sessionId !== undefined) sessions.remove(transport.sessionId)
  }
  const server = makeFrontServer(gateway.deps, principal)
  if (principal !== undefined) sessionPrincipals.set(transport, principal)
  await server.connect(transport)
  transport.handleRequest(req, res, parsed)
  // An initialize the transport turned down (wrong Accept, bad version...) opened no session: drop its server.
  if (transport.sessionId === undefined) {
    sessions.release(reservation)
    await server.close()
  }
}

/** The `/mcp` route over a session table. */
export const mcpRoute = (
  options: McpRouteOptions
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest | Caller> =>
  nodeRoute("/mcp", (req, res, principal) => serve(options, req, res, principal))
