/**
 * The guard (HttpGuard.ts) as effect/http middleware: each route is wrapped in the guard of its kind (`guarded`), so a
 * request is checked before its route reads anything, its body included; a refused one is answered 403 (Host, Origin)
 * or 401 with `WWW-Authenticate: Bearer`, or with OAuth the challenge of auth/BearerChallenge.ts. What no route serves
 * or a route dies with: `answerUnrouted`.
 */
import type { Principal } from "@interlock/core"
import { Cause, Context, Effect } from "effect"
import { HttpServerError, HttpServerRequest, type HttpServerResponse } from "effect/http"
import { bindAccessToken } from "../../credentials/AccessTokens.ts"
import { missingToken, refusal } from "./auth/BearerChallenge.ts"
import { guard, type GuardOptions } from "./HttpGuard.ts"
import { jsonResponse } from "./JsonResponse.ts"

/** Who sent the request being served, as the guard found it: its principal (undefined: anonymous) and its token. */
export class Caller extends Context.Service<Caller, {
  readonly principal: Principal | undefined
  readonly token: string | undefined
}>()("@interlock/gateway/Caller") {}

type Response = HttpServerResponse.HttpServerResponse

/** The URL of the request being served (its host is a placeholder: the guard reads the Host header itself). */
export const requestUrl = (request: HttpServerRequest.HttpServerRequest): URL =>
  new URL(request.url, "http://gateway.invalid")

/**
 * Runs `route` only for a request the guard passes, with its Caller; answers any other itself. `/mcp`, `/metrics` and
 * `/claude/hook` take the bearer tokens, the console's routes also the console token. With OAuth, a token that is no
 * static token is checked by the resource server first: the route never runs for a bad token.
 */
export const guarded = (options: GuardOptions) =>
<E, R>(
  route: Effect.Effect<Response, E, R>
): Effect.Effect<Response, E, Exclude<R, Caller> | HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const verdict = guard(request.headers, requestUrl(request), options)
    if (verdict._tag === "Verify") {
      const { token, oauth } = verdict
      if (token === undefined) return Effect.succeed(missingToken(oauth))
      return Effect.matchEffect(oauth.verify(token), {
        onFailure: (error) => Effect.succeed(refusal(oauth, error)),
        onSuccess: (principal) => {
          // The verified token is the principal's subject token for a downstream token exchange.
          bindAccessToken(principal, token)
          return Effect.provideService(route, Caller, { principal, token })
        }
      })
    }
    if (verdict._tag === "Reject") {
      return Effect.succeed(
        jsonResponse(
          verdict.status,
          { error: verdict.message },
          verdict.status === 401 ? { "www-authenticate": "Bearer" } : {}
        )
      )
    }
    return Effect.provideService(route, Caller, { principal: verdict.principal, token: verdict.token })
  })

/** The answer to a route that died: a JSON-RPC internal error, as `/mcp` gives every refusal. */
const internalError = jsonResponse(500, {
  jsonrpc: "2.0",
  error: { code: -32603, message: "Internal error" },
  id: null
})

/** The answer to a path no route serves. */
export const notFound = jsonResponse(404, { error: "Not found" })

/**
 * Answers what no route serves (404, behind the console's guard) and what a route failed or died with (500); an
 * interruption (the host went away) stays one.
 */
export const answerUnrouted =
  (options: GuardOptions) =>
  <E, R>(app: Effect.Effect<Response, E, R>): Effect.Effect<Response, never, R | HttpServerRequest.HttpServerRequest> =>
    Effect.catchCause(app, (cause) => {
      if (Cause.hasInterruptsOnly(cause)) return Effect.interrupt
      const unrouted = cause.reasons.some((reason) =>
        Cause.isFailReason(reason) && HttpServerError.isHttpServerError(reason.error) &&
        reason.error.reason._tag === "RouteNotFound"
      )
      return unrouted ? guarded(options)(Effect.succeed(notFound)) : Effect.succeed(internalError)
    })
