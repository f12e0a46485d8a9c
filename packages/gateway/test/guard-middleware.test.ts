/**
 * The guard as effect/http middleware, on requests built in memory: who reaches a route, and what a failing or unrouted
 * request is answered.
 */
import { assert, describe, it } from "@effect/vitest"
import { Principal } from "@interlock/core"
import { Effect } from "effect"
import { HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import type { ResourceServerShape } from "../src/front/http/auth/ResourceServer.ts"
import { KeysUnavailable, TokenRefused } from "../src/front/http/auth/TokenRefused.ts"
import { answerUnrouted, Caller, guarded } from "../src/front/http/GuardMiddleware.ts"
import type { GuardOptions } from "../src/front/http/HttpGuard.ts"

const alice = new Principal({ id: "alice" })
const OPTIONS: GuardOptions = {
  allowedHosts: ["127.0.0.1"],
  allowedOrigins: ["http://127.0.0.1:8080"],
  requireToken: true,
  principalFor: (token) => (token === "alice-token" ? alice : undefined)
}

const serve = <E>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, HttpServerRequest.HttpServerRequest>,
  headers: Record<string, string>
) =>
  Effect.gen(function*() {
    const request = HttpServerRequest.fromWeb(new Request("http://127.0.0.1:8080/x", { headers }))
    const response = yield* Effect.provideService(app, HttpServerRequest.HttpServerRequest, request)
    const web = HttpServerResponse.toWeb(response)
    return {
      status: web.status,
      body: yield* Effect.promise(() => web.json()),
      authenticate: web.headers.get("www-authenticate")
    }
  })

const whoami = Effect.map(Caller, (caller) => HttpServerResponse.jsonUnsafe({ id: caller.principal?.id ?? null }))

describe("GuardMiddleware", () => {
  it.effect("a route sees the Caller the guard found; a refused request never reaches it", () =>
    Effect.gen(function*() {
      const route = guarded(OPTIONS)(whoami)
      assert.deepStrictEqual(yield* serve(route, { host: "127.0.0.1:8080", authorization: "Bearer alice-token" }), {
        status: 200,
        body: { id: "alice" },
        authenticate: null
      })
      const refused = yield* serve(route, { host: "127.0.0.1:8080" })
      assert.deepStrictEqual([refused.status, refused.authenticate], [401, "Bearer"])
      assert.strictEqual(
        (yield* serve(route, { host: "evil.example", authorization: "Bearer alice-token" })).status,
        403
      )
      assert.strictEqual(
        (yield* serve(route, {
          host: "127.0.0.1:8080",
          origin: "http://127.0.0.1:9999",
          authorization: "Bearer alice-token"
        })).status,
        403
      )
    }))

  it.effect(
    "with OAuth, a token that is no static token goes to the resource server, whose refusals carry " +
      "its challenge",
    () =>
      Effect.gen(function*() {
        const asked: Array<string> = []
        const oauth: ResourceServerShape = {
          resource: "http://127.0.0.1:8080/mcp",
          issuer: "https://issuer.example",
          resourceMetadataUrl: "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp",
          requiredScopes: [],
          verify: (token) =>
            Effect.suspend((): Effect.Effect<Principal, TokenRefused | KeysUnavailable> => {
              asked.push(token)
              if (token === "bob-jwt") return Effect.succeed(new Principal({ id: "bob", roles: ["ops"] }))
              if (token === "narrow-jwt") return Effect.fail(new TokenRefused({ reason: "scope" }))
              if (token === "offline-jwt") return Effect.fail(new KeysUnavailable({ detail: "key set timeout" }))
              return Effect.fail(new TokenRefused({ reason: "expired" }))
            })
        }
        const route = guarded({ ...OPTIONS, oauth })(whoami)
        const host = { host: "127.0.0.1:8080" }
        const metadata = `resource_metadata="${oauth.resourceMetadataUrl}"`
        assert.deepStrictEqual((yield* serve(route, { ...host, authorization: "Bearer alice-token" })).body, {
          id: "alice"
        })
        assert.deepStrictEqual((yield* serve(route, { ...host, authorization: "Bearer bob-jwt" })).body, { id: "bob" })
        assert.deepStrictEqual(yield* serve(route, host), {
          status: 401,
          body: { error: "Unauthorized: a valid bearer token is required" },
          authenticate: `Bearer ${metadata}`
        })
        const expired = yield* serve(route, { ...host, authorization: "Bearer old-jwt" })
        assert.deepStrictEqual([expired.status, expired.authenticate], [
          401,
          `Bearer error="invalid_token", error_description="the token has expired", ${metadata}`
        ])
        assert.deepStrictEqual((yield* serve(route, { ...host, authorization: "Bearer narrow-jwt" })).status, 403)
        assert.deepStrictEqual((yield* serve(route, { ...host, authorization: "Bearer offline-jwt" })).status, 503)
        // An access token only counts in the Authorization header; Host and Origin are checked before any token.
        assert.strictEqual((yield* serve(route, { ...host, cookie: "interlock_token=bob-jwt" })).status, 401)
        assert.strictEqual((yield* serve(route, { host: "evil.example", authorization: "Bearer bob-jwt" })).status, 403)
        assert.deepStrictEqual(asked, ["bob-jwt", "old-jwt", "narrow-jwt", "offline-jwt"])
      })
  )

  it.effect("an unrouted request is 404 behind the guard; a route that fails or dies is a JSON-RPC 500", () =>
    Effect.gen(function*() {
      const unrouted = Effect.flatMap(
        HttpServerRequest.HttpServerRequest,
        (request) =>
          Effect.fail(new HttpServerError.HttpServerError({ reason: new HttpServerError.RouteNotFound({ request }) }))
      )
      const answer = answerUnrouted(OPTIONS)
      const signedIn = { host: "127.0.0.1:8080", authorization: "Bearer alice-token" }
      assert.deepStrictEqual(yield* serve(answer(unrouted), signedIn), {
        status: 404,
        body: { error: "Not found" },
        authenticate: null
      })
      assert.strictEqual((yield* serve(answer(unrouted), { host: "127.0.0.1:8080" })).status, 401)
      const internal = { jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: null }
      assert.deepStrictEqual((yield* serve(answer(Effect.die(new Error("boom"))), signedIn)).body, internal)
      assert.strictEqual((yield* serve(answer(Effect.fail("typed failure")), signedIn)).status, 500)
    }))
})
