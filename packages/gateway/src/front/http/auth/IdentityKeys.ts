/**
 * The key set of the gateway's identity tokens (`auth.identity`), published at
 * `/.well-known/jwks.json` so that a downstream server can verify who the gateway acts for. Public
 * parts only; it takes no token, but answers only under the gateway's own Host names.
 */
import { Effect } from "effect"
import { HttpServerRequest, type HttpServerResponse } from "effect/http"
import type { JWK } from "jose"
import { hostAllowed } from "../HttpGuard.ts"
import { jsonResponse } from "../JsonResponse.ts"

/** Where the key set is published. */
export const JWKS_PATH = "/.well-known/jwks.json"

/** The key-set route: GET answers `{ keys }`, anything else 405; a Host not the gateway's is 403. */
export const identityKeysRoute = (
  jwks: { readonly keys: ReadonlyArray<JWK> },
  allowedHosts: ReadonlyArray<string>
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest> =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    if (!hostAllowed(request.headers, allowedHosts)) {
      return jsonResponse(403, { error: "Forbidden: Host header not allowed" })
    }
    if (request.method !== "GET") return jsonResponse(405, { error: "Method not allowed" }, { allow: "GET" })
    return jsonResponse(200, { keys: jwks.keys }, { "cache-control": "max-age=300" })
  })
