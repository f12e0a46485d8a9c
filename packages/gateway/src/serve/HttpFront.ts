/**
 * The gateway's HTTP face on one port (effect/http on NodeHttpServer): `/mcp` (McpRoute.ts), `/metrics`, `/claude/hook`
 * (ClaudeHookRoute.ts), the console at `/`, and `/interceptors` when asked. Every route but the OAuth resource
 * metadata, the identity key set (front/http/auth/IdentityKeys.ts) and the connect pages (ConnectRoute.ts) is behind
 * the guard (front/http/GuardMiddleware.ts) and runs in this layer's context. Paths match exactly.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Clock, Context, Effect, Layer, Schema, Scope } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { PrometheusMetrics } from "effect/observability"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { bindNames } from "../config/Plan.ts"
import { consoleGuardOptions } from "../console/ConsoleAccess.ts"
import { consoleApi, consoleRoutes } from "../console/ConsoleRoutes.ts"
import type { CredentialBrokerShape } from "../credentials/CredentialBroker.ts"
import { identityKeysRoute, JWKS_PATH } from "../front/http/auth/IdentityKeys.ts"
import { METADATA_PATHS, metadataRoute } from "../front/http/auth/ResourceMetadata.ts"
import { answerUnrouted, guarded, notFound } from "../front/http/GuardMiddleware.ts"
import { type GuardOptions, ownOrigins } from "../front/http/HttpGuard.ts"
import { SessionTable, sweepIdle } from "../front/http/mcp/HttpSessions.ts"
import type { HttpSessionTransport } from "../front/http/mcp/HttpSessionTransport.ts"
import { makeModernFront } from "../front/http/mcp/ModernRoute.ts"
import { DRAIN_MS, Gateway } from "../runtime/Gateway.ts"
import { CLAUDE_HOOK_PATH, claudeHookRoute } from "./ClaudeHookRoute.ts"
import { connectRoutes } from "./ConnectRoute.ts"
import { interceptorRoute, INTERCEPTORS_PATH, makeServing } from "./InterceptorRoute.ts"
import { mcpRoute } from "./McpRoute.ts"

export { MAX_BODY_BYTES } from "./McpRoute.ts"

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
  static readonly layer: Layer.Layer<HttpFront, ListenError, Gateway> = Layer.effect(
    HttpFront,
    Effect.suspend(() => make({}))
  )

  /**
   * The face with options: `interceptors` also serves the policy and redactions at `/interceptors`
   * (InterceptorRoute.ts).
   */
  static layerWith(options: HttpFrontOptions): Layer.Layer<HttpFront, ListenError, Gateway> {
    return Layer.effect(HttpFront, Effect.suspend(() => make(options)))
  }
}

/** What the HTTP face serves beyond `/mcp`, the console, `/metrics` and `/claude/hook`. */
export interface HttpFrontOptions {
  readonly interceptors?: boolean
}

/** Paths match as written: no case folding, no trailing or doubled slash taken for none. */
const EXACT_PATHS = { caseSensitive: true, ignoreTrailingSlash: false, ignoreDuplicateSlashes: false }

/** `GET /metrics`: the Prometheus text of this layer's metrics. */
const metrics = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  if (request.method !== "GET") return notFound
  return HttpServerResponse.text(yield* PrometheusMetrics.format(), { contentType: "text/plain; version=0.0.4" })
})

/**
 * The routes of the face, each behind the guard of its kind; the console's API is an HttpApi (console/ConsoleApi.ts).
 */
const routes = (
  guards: { readonly mcp: GuardOptions; readonly console: GuardOptions },
  mcp: ReturnType<typeof mcpRoute>,
  credentials: CredentialBrokerShape,
  interceptors: ReturnType<typeof interceptorRoute> | undefined
) => {
  const { connect, jwks } = credentials
  const oauth = guards.mcp.oauth
  return Layer.merge(
    HttpRouter.addAll([
      ...(oauth === undefined
        ? []
        : METADATA_PATHS.map((path) => HttpRouter.route("*", path, metadataRoute(oauth, guards.mcp.allowedHosts)))),
      ...(jwks === undefined
        ? []
        : [HttpRouter.route("*", JWKS_PATH, identityKeysRoute(jwks, guards.mcp.allowedHosts))]),
      ...(connect === undefined ? [] : connectRoutes(connect, guards.mcp)),
      HttpRouter.route("*", "/mcp", guarded(guards.mcp)(mcp)),
      ...(interceptors === undefined
        ? []
        : [HttpRouter.route("*", INTERCEPTORS_PATH, guarded(guards.mcp)(interceptors))]),
      HttpRouter.route("*", "/metrics", guarded(guards.mcp)(metrics)),
      HttpRouter.route("*", CLAUDE_HOOK_PATH, guarded(guards.mcp)(claudeHookRoute)),
      ...consoleRoutes(guards.console)
    ]),
    consoleApi(guards.console)
  )
}

const notListening = (res: ServerResponse) => {
  res.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ error: "Not listening yet" }))
}

const make = (options: HttpFrontOptions) =>
  Effect.gen(function*() {
    const gateway = yield* Gateway
    const listen = gateway.plan.listen
    const clock = yield* Clock.Clock
    const sessions = new SessionTable<HttpSessionTransport>(listen.sessions, () => clock.currentTimeMillisUnsafe())
    const modern = makeModernFront(gateway.deps)
    yield* Effect.forkScoped(sweepIdle(sessions, listen.sessions))
    // The requests' fibers: their scope closes after the shutdown below, which lets them finish first.
    const requests = yield* Scope.fork(yield* Effect.scope, "parallel")

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

    // Until listening, a request is told so: the default allowed origins are on the port the OS chose.
    let serve: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => notListening(res)
    const server = createServer((req, res) => serve(req, res))
    server.on("clientError", (_error, socket) => socket.destroy())
    const address = yield* Effect.acquireRelease(
      Effect.callback<AddressInfo, ListenError>((resume) => {
        const onError = (error: NodeJS.ErrnoException) =>
          resume(
            Effect.fail(
              new ListenError({ address: `${listen.host}:${listen.port}`, detail: error.code ?? "listen failed" })
            )
          )
        server.once("error", onError)
        server.listen(listen.port, listen.host, () => {
          server.off("error", onError)
          const bound = server.address()
          if (bound === null || typeof bound === "string") {
            return resume(
              Effect.fail(new ListenError({ address: `${listen.host}:${listen.port}`, detail: "not an IP address" }))
            )
          }
          resume(Effect.succeed(bound))
        })
      }),
      () =>
        Effect.sync(() => server.close()).pipe(
          // Stop accepting, let in-flight calls answer, then end the sessions and their sockets.
          Effect.andThen(gateway.drain),
          // A 2026-07-28 host's listen streams are POST answers that never end by themselves.
          Effect.andThen(Effect.promise(() => modern.close())),
          Effect.andThen(responsesDone),
          Effect.andThen(Effect.promise(async () => {
            await Promise.all(sessions.all().map((transport) => transport.close().catch(() => undefined)))
            server.closeAllConnections()
          }))
        )
    )
    const host = address.family === "IPv6" ? `[${address.address}]` : address.address
    const base = `http://${host === "0.0.0.0" || host === "[::]" ? "127.0.0.1" : host}:${address.port}`
    // Loaded only when configured: its JOSE code stays out of every other gateway's start-up.
    const oauthPlan = listen.oauth
    const oauth = oauthPlan === undefined
      ? undefined
      : yield* Effect.flatMap(Effect.promise(() => import("../front/http/auth/ResourceServer.ts")), (module) =>
        module.makeResourceServer(oauthPlan, `${listen.publicUrl ?? base}/mcp`))
    // The console's routes also take the console-only token; `/mcp`, `/metrics` and `/claude/hook` never do.
    const mcp: GuardOptions = {
      allowedHosts: listen.allowedHosts,
      allowedOrigins: listen.allowedOrigins ??
        [
          ...ownOrigins(bindNames(listen.host), address.port),
          ...(listen.publicUrl === undefined ? [] : [listen.publicUrl])
        ],
      requireToken: listen.principals.size > 0 || oauth !== undefined,
      principalFor: gateway.principalFor,
      oauth
    }
    const guards = { mcp, console: consoleGuardOptions(gateway.plan, mcp) }
    // The gateway's identity tokens name its public origin as their issuer, where their keys are published.
    gateway.credentials.publishAt(listen.publicUrl ?? base)
    const interceptors = options.interceptors === true
      ? interceptorRoute(yield* makeServing(gateway), track)
      : undefined
    const app = yield* HttpRouter.toHttpEffect(
      routes(guards, mcpRoute({ gateway, sessions, track, modern }), gateway.credentials, interceptors)
    ).pipe(
      Effect.provideService(HttpRouter.RouterConfig, EXACT_PATHS)
    )
    serve = yield* NodeHttpServer.makeHandler(answerUnrouted(guards.console)(app), { scope: requests })
    return {
      host: address.address,
      port: address.port,
      mcpUrl: `${base}/mcp`,
      consoleUrl: `${base}/`,
      liveSessions: () =>
        sessions.size
    }
  })
