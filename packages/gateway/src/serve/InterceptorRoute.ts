/**
 * `interlock serve --interceptors`: the gateway's policy, redactions and named hooks served as interceptors
 * (front/InterceptorServer.ts), at `/interceptors` behind the `/mcp` guard and tokens, or over stdio.
 * The policy and hooks are the generation's in force: built once per generation from its plan, as its calls' are.
 */
import {
  HookContext,
  JsonText,
  Policy,
  type PolicyDecision,
  type PolicyShape,
  type Principal,
  ToolCall
} from "@interlock/core"
import { createMcpHandler } from "@modelcontextprotocol/server"
import { serveStdio as serveEras } from "@modelcontextprotocol/server/stdio"
import { Context, Effect, Layer, type Scope } from "effect"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Caller } from "../front/http/GuardMiddleware.ts"
import { rpcError } from "../front/http/mcp/McpWire.ts"
import { authInfoFor, principalOf, webRequest, writeResponse } from "../front/http/mcp/ModernRoute.ts"
import { readBody } from "../front/http/RequestBody.ts"
import { type InterceptorServing, makeInterceptorServer, type PolicyQuery } from "../front/InterceptorServer.ts"
import { HostStdioTransport } from "../front/stdio/HostStdioTransport.ts"
import { planPolicyLayer } from "../governance/PolicyLayer.ts"
import type { GatewayShape } from "../runtime/Gateway.ts"
import { MAX_BODY_BYTES } from "./McpRoute.ts"
import { namedHooksOf } from "./NamedHooksInForce.ts"
import { nodeRoute } from "./NodeRoute.ts"
import { perGeneration } from "./PerGeneration.ts"
import type { StdioStreams } from "./StdioFront.ts"

/** The path interceptors are served at. */
export const INTERCEPTORS_PATH = "/interceptors"

const SERVING_CLIENT = "interlock-interceptors"

/** The interceptors' serving over a gateway, in the current scope (which closes what each generation built). */
export const makeServing = (gateway: GatewayShape): Effect.Effect<InterceptorServing, never, Scope.Scope> =>
  Effect.gen(function*() {
    const policyInForce = yield* perGeneration(gateway, (plan) =>
      Effect.map(
        Layer.build(planPolicyLayer(plan, plan.loaded.baseDir)),
        (context): PolicyShape => Context.get(context, Policy)
      ))
    // The invoking host names tools and prompts as this gateway exposes them; a name it does not know is any server's.
    const target = (name: string) => {
      const resolved = gateway.deps.namespace.resolve(name)
      return { serverId: resolved?.serverId ?? "*", name: resolved?.name ?? name }
    }
    const context = (serverId: string, principal: Principal | undefined) =>
      new HookContext({ client: SERVING_CLIENT, serverId, assigns: {}, principal })
    const namedHooks = yield* perGeneration(gateway, (plan) => namedHooksOf(plan, { target, context }))
    const decide = (query: PolicyQuery, principal: Principal | undefined) =>
      Effect.gen(function*() {
        const policy = yield* policyInForce
        const { name, serverId } = query._tag === "Read" ? { name: "", serverId: "*" } : target(query.name)
        const ctx = context(serverId, principal)
        if (query._tag === "Call") {
          const call = new ToolCall({ serverId, name, args: query.args, callId: "interceptor" })
          return yield* policy.decide(call, ctx)
        }
        if (policy.decideOperation === undefined) return undefined
        return yield* policy.decideOperation(
          query._tag === "Read"
            ? { _tag: "ReadResource", serverId, uri: query.uri }
            : { _tag: "GetPrompt", serverId, name, args: query.args },
          ctx
        )
      }).pipe(
        // A policy that cannot be built denies, as the gateway's own calls would be refused.
        Effect.catchTag("ConfigError", (): Effect.Effect<PolicyDecision> =>
          Effect.succeed({ _tag: "Deny", reason: "the policy could not be loaded" }))
      )
    return {
      decide,
      redactions: () => gateway.plan.redactions,
      namedHooks,
      run: gateway.deps.run,
      version: gateway.deps.version
    }
  })

/**
 * Serves one request: its body read under the `/mcp` cap, a fresh server for the guard's principal (stateless, both
 * eras).
 */
const serveOne = async (
  handler: ReturnType<typeof createMcpHandler>,
  req: IncomingMessage,
  res: ServerResponse,
  principal: Principal | undefined
) => {
  let parsedBody: unknown
  if (req.method === "POST") {
    const body = await readBody(req, MAX_BODY_BYTES)
    if (body === undefined) return rpcError(res, 413, -32600, `Request body larger than ${MAX_BODY_BYTES} bytes`)
    try {
      parsedBody = JsonText.parse(body.toString("utf8"))
    } catch {
      return rpcError(res, 400, -32700, "Parse error: the body is not JSON")
    }
  }
  const gone = new AbortController()
  res.once("close", () => {
    if (!res.writableFinished) gone.abort()
  })
  const answer = await handler.fetch(webRequest(req, gone.signal), { parsedBody, authInfo: authInfoFor(principal) })
  return writeResponse(answer, res)
}

/** The `/interceptors` route over one SDK handler, whose every request gets a server for its own principal. */
export const interceptorRoute = (
  serving: InterceptorServing,
  track: (res: ServerResponse) => void
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest | Caller> => {
  const handler = createMcpHandler((ctx) => makeInterceptorServer(serving, principalOf(ctx)))
  return nodeRoute("/interceptors", (req, res, principal) => {
    if (req.method === "POST") track(res)
    return serveOne(handler, req, res, principal)
  })
}

/** Serves the interceptors to one host over the given streams until it disconnects (`serve --stdio --interceptors`). */
export const serveInterceptorsStdio = (gateway: GatewayShape, streams: StdioStreams) =>
  Effect.gen(function*() {
    const serving = yield* makeServing(gateway)
    const closed = new Promise<void>((resolve) => {
      streams.input.once("end", resolve)
      streams.input.once("close", resolve)
    })
    yield* Effect.acquireRelease(
      Effect.sync(() =>
        serveEras(() => makeInterceptorServer(serving, undefined), {
          transport: new HostStdioTransport(streams.input, streams.output)
        })
      ),
      (handle) => Effect.promise(() => handle.close().catch(() => undefined))
    )
    yield* Effect.promise(() => closed)
  })
