/**
 * RFC 9728 protected-resource metadata, served at `/.well-known/oauth-protected-resource` and at its path-suffixed form
 * for `/mcp` (`/.well-known/oauth-protected-resource/mcp`), the two places an MCP client looks. The document is public:
 * it takes no token and answers any Origin (`Access-Control-Allow-Origin: *`, no credentials, so browser clients can
 * discover the authorization server), but only under the gateway's own Host names, as every route does.
 */
import { Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { hostAllowed } from "../HttpGuard.ts"
import { jsonResponse } from "../JsonResponse.ts"
import type { ResourceServerShape } from "./ResourceServer.ts"

/** The metadata's paths: the root form and the one suffixed with `/mcp`. */
export const METADATA_PATHS = [
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-protected-resource/mcp"
] as const

/** The RFC 9728 document for a resource server. */
export const metadataDocument = (server: ResourceServerShape): Record<string, unknown> => ({
  resource: server.resource,
  authorization_servers: [server.issuer],
  bearer_methods_supported: ["header"],
  ...(server.requiredScopes.length > 0 ? { scopes_supported: server.requiredScopes } : {}),
  resource_name: "Interlock gateway"
})

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, OPTIONS",
  "access-control-allow-headers": "mcp-protocol-version"
}

/**
 * The metadata route: GET answers the document, OPTIONS a CORS preflight, anything else 405; a Host not the gateway's
 * is 403.
 */
export const metadataRoute = (
  server: ResourceServerShape,
  allowedHosts: ReadonlyArray<string>
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest> => {
  const body = metadataDocument(server)
  return Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    if (!hostAllowed(request.headers, allowedHosts)) {
      return jsonResponse(403, { error: "Forbidden: Host header not allowed" })
    }
    if (request.method === "OPTIONS") return HttpServerResponse.empty({ status: 204, headers: CORS })
    if (request.method !== "GET") return jsonResponse(405, { error: "Method not allowed" }, { allow: "GET, OPTIONS" })
    return jsonResponse(200, body, { ...CORS, "cache-control": "max-age=300" })
  })
}
