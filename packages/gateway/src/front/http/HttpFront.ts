/**
 * The gateway's HTTP face on one port: `/mcp` (Streamable HTTP, one session per host), `/metrics`
 * (Prometheus text), `/claude/hook` (a forwarded Claude Code hook event, ClaudeHookRoute.ts), and
 * the web console at `/` with its JSON API. Every request first passes the guard (Host, Origin,
 * bearer token). A session is bound to the principal that opened it, counts
 * against the session caps, and is closed once idle for too long (HttpSessions).
 */
import type { Principal } from "@interlock/core"
import { Clock, Context, Effect, Layer, Schema } from "effect"
import { PrometheusMetrics } from "effect/observability"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { CLAUDE_HOOK_PATH, handleClaudeHook } from "./ClaudeHookRoute.ts"
import { consoleGuardOptions } from "../../console/ConsoleAccess.ts"
import { handleConsole } from "../../console/ConsoleRoutes.ts"
import { makeFrontServer } from "../FrontServer.ts"
import { DRAIN_MS, Gateway } from "../../Gateway.ts"
import { guard, type GuardOptions, ownOrigins, TOKEN_COOKIE } from "./HttpGuard.ts"
import { SessionCapReached, SessionTable, sweepIdle } from "./HttpSessions.ts"
import { HttpSessionTransport, rpcError } from "./HttpSessionTransport.ts"
import { bindNames } from "../../config/Plan.ts"
import { readBody } from "./RequestBody.ts"

/** The largest request body `/mcp` accepts (bytes). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024

/** Where the HTTP face listens, once it does. */
export interface HttpAddress {
  readonly host: string
  readonly port: number
  readonly mcpUrl: string
  readonly consoleUrl: string
}

/** The HTTP face could not listen (address in use, not permitted, ...). */
export class ListenError extends Schema.TaggedError<ListenError>()("ListenError", {
  address: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `cannot listen on ${this.address}: ${this.detail}`
  }
}

/** The running HTTP face: where it listens, and how many `/mcp` sessions are open (for tests). */
export interface HttpFrontShape extends HttpAddress {
  readonly liveSessions: () => number
}

/** The running HTTP face. */
export class HttpFront extends Context.Service<HttpFront, HttpFrontShape>()("@interlock/gateway/HttpFront") {
  /** Listens at the plan's address (port 0 picks one); closing the scope stops accepting and ends sessions. */
  static readonly layer: Layer.Layer<HttpFront, ListenError, Gateway> = Layer.effect(HttpFront, Effect.suspend(() => make()))
}

const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body))
}

const isInitialize = (body: unknown): boolean =>
  typeof body === "object" && body !== null && !Array.isArray(body) && (body as { method?: unknown }).method === "initialize"

const make = () =>
  Effect.gen(function*() {
    const gateway = yield* Gateway
    const listen = gateway.plan.listen
    const context = yield* Effect.context<never>()
    const clock = yield* Clock.Clock
    const sessions = new SessionTable<HttpSessionTransport>(listen.sessions, () => clock.currentTimeMillisUnsafe())
    yield* Effect.forkScoped(sweepIdle(sessions, listen.sessions))
    // Set once listening: the default allowed origins are on the port the OS chose. The console's
    // routes also take the console-only token; `/mcp` and `/metrics` never do.
    let guards: { readonly mcp: GuardOptions; readonly console: GuardOptions } | undefined = undefined

    // POST responses still being written: shutdown waits for them (a GET stream stays open forever).
    const open = new Set<ServerResponse>()
    let drained: (() => void) | undefined
    const track = (res: ServerResponse) => {
      open.add(res)
      res.once("close", () => {
        open.delete(res)
        if (open.size === 0) drained?.()
      })
    }
    const responsesDone = Effect.callback<void>((resume) => {
      if (open.size === 0) return resume(Effect.void)
      drained = () => resume(Effect.void)
    }).pipe(Effect.timeoutOption(DRAIN_MS), Effect.asVoid)

    const handleMcp = async (req: IncomingMessage, res: ServerResponse, principal: Principal | undefined) => {
      const sessionId = req.headers["mcp-session-id"]
      let parsed: unknown = undefined
      if (req.method === "POST") {
        track(res)
        const body = await readBody(req, MAX_BODY_BYTES)
        if (body === undefined) return rpcError(res, 413, -32600, `Request body larger than ${MAX_BODY_BYTES} bytes`)
        try {
          parsed = JSON.parse(body.toString("utf8"))
        } catch {
          return rpcError(res, 400, -32700, "Parse error: the body is not JSON")
        }
      }
      if (typeof sessionId === "string") {
        const entry = sessions.get(sessionId)
        if (entry === undefined) return rpcError(res, 404, -32001, "Session not found")
        if (entry.principal !== principal?.id) return rpcError(res, 403, -32600, "Forbidden: the session belongs to another principal")
        return entry.session.handleRequest(req, res, parsed)
      }
      if (req.method !== "POST" || !isInitialize(parsed)) {
        return rpcError(res, 400, -32600, "Bad Request: no session; start with an initialize request")
      }
      const reservation = sessions.reserve(principal?.id)
      if (reservation instanceof SessionCapReached) return rpcError(res, reservation.status, -32000, reservation.message)
      const transport: HttpSessionTransport = new HttpSessionTransport({
        resumable: listen.resumable,
        onsessioninitialized: (id) => sessions.open(reservation, id, transport),
        onsessionclosed: (id) => sessions.remove(id)
      })
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.remove(transport.sessionId)
      }
      const server = makeFrontServer(gateway.deps, principal)
      await server.connect(transport)
      transport.handleRequest(req, res, parsed)
      // An initialize the transport turned down (wrong Accept, bad version...) opened no session: drop its server.
      if (transport.sessionId === undefined) {
        sessions.release(reservation)
        await server.close()
      }
    }

    const handle = async (req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? "/", "http://gateway.invalid")
      if (guards === undefined) return sendJson(res, 503, { error: "Not listening yet" })
      const api = url.pathname === "/mcp" || url.pathname === "/metrics" || url.pathname === CLAUDE_HOOK_PATH
      const verdict = guard(req, url, api ? guards.mcp : guards.console)
      if (verdict._tag === "Reject") {
        const headers: Record<string, string> = verdict.status === 401 ? { "www-authenticate": "Bearer" } : {}
        return sendJson(res, verdict.status, { error: verdict.message }, headers)
      }
      if (url.pathname === "/mcp") return handleMcp(req, res, verdict.principal)
      if (url.pathname === CLAUDE_HOOK_PATH) {
        track(res)
        return handleClaudeHook(gateway, req, res, verdict.principal)
      }
      if (url.pathname === "/metrics" && req.method === "GET") {
        res.writeHead(200, { "content-type": "text/plain; version=0.0.4" }).end(PrometheusMetrics.formatUnsafe(context))
        return
      }
      const cookie: Record<string, string> = verdict.token !== undefined && url.searchParams.has("token")
        ? { "set-cookie": `${TOKEN_COOKIE}=${encodeURIComponent(verdict.token)}; HttpOnly; SameSite=Strict; Path=/` }
        : {}
      const handled = await handleConsole(gateway, req, res, url, cookie, verdict.principal)
      if (!handled) sendJson(res, 404, { error: "Not found" })
    }

    const server = createServer((req, res) => {
      handle(req, res).catch(() => {
        if (!res.headersSent) rpcError(res, 500, -32603, "Internal error")
        else res.end()
      })
    })
    server.on("clientError", (_error, socket) => socket.destroy())
    const address = yield* Effect.acquireRelease(
      Effect.callback<AddressInfo, ListenError>((resume) => {
        const onError = (error: NodeJS.ErrnoException) =>
          resume(Effect.fail(new ListenError({ address: `${listen.host}:${listen.port}`, detail: error.code ?? "listen failed" })))
        server.once("error", onError)
        server.listen(listen.port, listen.host, () => {
          server.off("error", onError)
          resume(Effect.succeed(server.address() as AddressInfo))
        })
      }),
      () =>
        Effect.sync(() => server.close()).pipe(
          // Stop accepting, let in-flight calls answer, then end the sessions and their sockets.
          Effect.andThen(gateway.drain),
          Effect.andThen(responsesDone),
          Effect.andThen(Effect.promise(async () => {
            await Promise.all(sessions.all().map((transport) => transport.close().catch(() => undefined)))
            server.closeAllConnections()
          }))
        )
    )
    const mcp: GuardOptions = {
      allowedHosts: listen.allowedHosts,
      allowedOrigins: listen.allowedOrigins ?? ownOrigins(bindNames(listen.host), address.port),
      requireToken: listen.principals.size > 0,
      principalFor: gateway.principalFor
    }
    guards = { mcp, console: consoleGuardOptions(gateway.plan, mcp) }
    const host = address.family === "IPv6" ? `[${address.address}]` : address.address
    const base = `http://${host === "0.0.0.0" || host === "[::]" ? "127.0.0.1" : host}:${address.port}`
    return {
      host: address.address,
      port: address.port,
      mcpUrl: `${base}/mcp`,
      consoleUrl: `${base}/`,
      liveSessions: () => sessions.size
    }
  })
