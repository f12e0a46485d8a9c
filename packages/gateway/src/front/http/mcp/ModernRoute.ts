/**
 * The 2026-07-28 half of `/mcp`: no session, each request served by itself. The SDK's own modern handler checks the
 * request's envelope and headers, answers `server/discover` and serves `subscriptions/listen` (per principal:
 * ListenBridge.ts); a fresh front server (FrontServer.ts, era modern) for the request's own principal serves everything
 * else through the same calls pipeline as a session does (`makeModernFront`).
 */
import type { Principal } from "@interlock/core"
import {
  type AuthInfo,
  createMcpHandler,
  type McpHttpHandler,
  type McpRequestContext
} from "@modelcontextprotocol/server"
import type { IncomingMessage, ServerResponse } from "node:http"
import { type FrontDeps, makeFrontServer } from "../../FrontServer.ts"
import { inputResponsesProblem } from "../../InputResponses.ts"
import { type ListenBridge, makeListenBridge } from "./ListenBridge.ts"
import { rpcRefusal } from "./McpWire.ts"
import { makeToolHeaders, refuseCall, type ToolHeaders } from "./ToolHeaders.ts"

/** JSON-RPC's invalid params. */
const INVALID_PARAMS = -32602

/** The most `subscriptions/listen` streams one principal (the anonymous one counts as one) may have open at once. */
export const MAX_LISTENS_PER_PRINCIPAL = 32

/**
 * How many principals' listen buses are kept; past it, those with no open stream are dropped (they hold nothing else).
 */
export const MAX_PRINCIPAL_FRONTS = 1_000

/** The modern front of one HTTP face. */
export interface ModernFront {
  /**
   * Serves one 2026-07-28 request (its body already parsed) for `principal`, writing the Node response; the guard has
   * passed it, and McpRoute has read its body under the size cap.
   */
  readonly serve: (
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    principal: Principal | undefined
  ) => Promise<void>
  /** Ends every listen stream and in-flight exchange (shutdown). */
  readonly close: () => Promise<void>
}

const PRINCIPAL_KEY = "interlock/principal"

/**
 * The principal a request's AuthInfo carries: the guard's, put there by `serve` (never derived from the request
 * itself).
 */
export const principalOf = (ctx: McpRequestContext): Principal | undefined =>
  ctx.authInfo?.extra?.[PRINCIPAL_KEY] as Principal | undefined

/** The AuthInfo that hands the SDK's handler the guard's principal (read back by {@link principalOf}). */
export const authInfoFor = (principal: Principal | undefined): AuthInfo => ({
  token: "",
  clientId: principal?.id ?? "anonymous",
  scopes: [],
  extra: { [PRINCIPAL_KEY]: principal }
})

/** The request as the web Request the SDK's handler takes: method and headers; its body is passed parsed. */
export const webRequest = (req: IncomingMessage, signal: AbortSignal): Request => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue
    headers.set(name, Array.isArray(value) ? value.join(", ") : value)
  }
  return new Request(new URL(req.url ?? "/mcp", "http://gateway.invalid"), {
    method: req.method ?? "POST",
    headers,
    signal
  })
}

/** Writes a web Response onto the Node response, streaming its body until it ends or the host goes away. */
export const writeResponse = async (response: Response, res: ServerResponse): Promise<void> => {
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => {
    headers[name] = value
  })
  res.writeHead(response.status, headers)
  if (response.body === null) return void res.end()
  const reader = response.body.getReader()
  const cancel = () => void reader.cancel().catch(() => undefined)
  res.once("close", cancel)
  try {
    while (true) {
      const chunk = await reader.read()
      if (chunk.done) break
      if (!res.write(chunk.value)) await new Promise<void>((resume) => res.once("drain", resume).once("close", resume))
    }
  } finally {
    res.off("close", cancel)
    res.end()
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The resource URIs a listen request follows, and the request with only `kept` of them. */
const listenUris = (body: Record<string, unknown>): ReadonlyArray<string> => {
  const params = isObject(body.params) ? body.params : {}
  const notifications = isObject(params.notifications) ? params.notifications : {}
  const uris = notifications.resourceSubscriptions
  return Array.isArray(uris) ? uris.filter((uri): uri is string => typeof uri === "string") : []
}

const withUris = (body: Record<string, unknown>, kept: ReadonlyArray<string>): Record<string, unknown> => {
  const params = body.params as Record<string, unknown>
  const notifications = params.notifications as Record<string, unknown>
  return { ...body, params: { ...params, notifications: { ...notifications, resourceSubscriptions: [...kept] } } }
}

interface PrincipalFront {
  readonly handler: McpHttpHandler
  readonly bridge: ListenBridge
  readonly headers: ToolHeaders
}

/**
 * The modern front over a gateway's front deps. The SDK's own modern handler (createMcpHandler with `legacy: "reject"`:
 * McpRoute keeps 2025 traffic on the sessions) checks the request's `_meta` envelope (protocol version, client info and
 * capabilities), the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers against the body (a mismatch is refused; a
 * tools/call's Mcp-Param-* headers are checked before it, by ToolHeaders.ts), answers `server/discover`, stamps
 * `resultType` and the cache hints, and serves `subscriptions/listen`: a stream's resource subscriptions are subscribed
 * downstream for as long as it is open, and only that principal's streams hear of them. A fresh front server for the
 * request's own principal serves everything else.
 */
export const makeModernFront = (deps: FrontDeps): ModernFront => {
  const fronts = new Map<string | undefined, PrincipalFront>()
  const frontOf = (principal: Principal | undefined): PrincipalFront => {
    const known = fronts.get(principal?.id)
    if (known !== undefined) return known
    if (fronts.size >= MAX_PRINCIPAL_FRONTS) {
      // Dropped, not closed: a request it is serving finishes on it.
      for (const [id, front] of fronts) if (front.bridge.idle()) fronts.delete(id)
    }
    const bridge = makeListenBridge(deps, principal)
    const headers = makeToolHeaders(deps, principal)
    // One request, one server, for the principal the guard found for it; its listings teach the Mcp-Param-* gate.
    const factory = (ctx: McpRequestContext) => makeFrontServer(headers.deps, principalOf(ctx), "modern", false)
    const handler = createMcpHandler(factory, {
      legacy: "reject",
      bus: bridge.bus,
      maxSubscriptions: MAX_LISTENS_PER_PRINCIPAL
    })
    const front = { handler, bridge, headers }
    fronts.set(principal?.id, front)
    return front
  }

  const serve = async (req: IncomingMessage, res: ServerResponse, body: unknown, principal: Principal | undefined) => {
    const { handler, bridge, headers } = frontOf(principal)
    const gone = new AbortController()
    // Only a host that goes away before its answer is written cancels (an abort costs a DOMException per request).
    res.once("close", () => {
      if (!res.writableFinished) gone.abort()
    })
    const authInfo = authInfoFor(principal)
    const request = webRequest(req, gone.signal)
    // A retry's answers that are not an object of objects: the SDK would drop them and call as if none came.
    const malformed = isObject(body) ? inputResponsesProblem(body.params) : undefined
    if (malformed !== undefined) {
      return rpcRefusal(res, isObject(body) ? body.id : null, {
        code: INVALID_PARAMS,
        message: `Interlock: ${malformed}`
      })
    }
    // SEP-2243: a call whose Mcp-Param-* headers disagree with its body reaches nothing (ToolHeaders.ts).
    if (isObject(body) && body.method === "tools/call") {
      const refused = await headers.refusal(req, body)
      if (refused !== undefined) return refuseCall(res, body.id, refused)
    }
    if (
      !isObject(body) || body.method !== "subscriptions/listen" || !isObject(body.params) ||
      !isObject(body.params.notifications)
    ) {
      return writeResponse(await handler.fetch(request, { parsedBody: body, authInfo }), res)
    }
    // A stream follows only the resources a server of the gateway offers, for as long as it is open.
    const kept = await bridge.opened(listenUris(body), gone.signal)
    try {
      const parsedBody = kept.length === listenUris(body).length ? body : withUris(body, kept)
      await writeResponse(await handler.fetch(request, { parsedBody, authInfo }), res)
    } finally {
      bridge.closed(kept)
    }
  }

  return {
    serve,
    close: () =>
      Promise.all([...fronts.values()].map((front) => front.handler.close().catch(() => undefined))).then(() =>
        undefined
      )
  }
}
