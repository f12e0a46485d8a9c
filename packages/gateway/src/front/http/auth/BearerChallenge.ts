/**
 * The answers to a request the OAuth resource server refuses (RFC 6750 with RFC 9728's
 * `resource_metadata`): 401 `WWW-Authenticate: Bearer resource_metadata="…"` without a token, 401
 * `error="invalid_token"` for a bad one, 403 `error="insufficient_scope"` with `scope=` for one
 * without the required scopes, and 503 when the authorization server's keys cannot be loaded.
 */
import type { HttpServerResponse } from "effect/http"
import { jsonResponse } from "../JsonResponse.ts"
import { DESCRIPTIONS, type KeysUnavailable, type TokenRefused } from "./TokenRefused.ts"

/** What a challenge names: where the metadata is, and which scopes a token must carry. */
export interface ChallengeInfo {
  readonly resourceMetadataUrl: string
  readonly requiredScopes: ReadonlyArray<string>
}

// The values are fixed strings and configured URLs and scopes, never from the request; quotes are escaped anyway.
const quoted = (value: string): string => `"${value.replace(/[\\"]/g, "\\$&")}"`

/** The `WWW-Authenticate` value for an error (or none, when no token was given). */
export const challengeHeader = (
  info: ChallengeInfo,
  error?: { readonly code: string; readonly description: string }
): string => {
  const params: Array<string> = []
  if (error !== undefined) params.push(`error=${quoted(error.code)}`, `error_description=${quoted(error.description)}`)
  if (info.requiredScopes.length > 0) params.push(`scope=${quoted(info.requiredScopes.join(" "))}`)
  params.push(`resource_metadata=${quoted(info.resourceMetadataUrl)}`)
  return `Bearer ${params.join(", ")}`
}

/** 401 to a request that carries no token the gateway knows. */
export const missingToken = (info: ChallengeInfo): HttpServerResponse.HttpServerResponse =>
  jsonResponse(401, { error: "Unauthorized: a valid bearer token is required" }, {
    "www-authenticate": challengeHeader(info)
  })

/** The answer to a refused token, or to keys that could not be loaded. */
export const refusal = (
  info: ChallengeInfo,
  error: TokenRefused | KeysUnavailable
): HttpServerResponse.HttpServerResponse => {
  if (error._tag === "KeysUnavailable") {
    return jsonResponse(503, {
      error: "temporarily_unavailable",
      error_description: "the authorization server's keys cannot be loaded"
    })
  }
  const code = error.reason === "scope" ? "insufficient_scope" : "invalid_token"
  const description = DESCRIPTIONS[error.reason]
  return jsonResponse(error.reason === "scope" ? 403 : 401, { error: code, error_description: description }, {
    "www-authenticate": challengeHeader(info, { code, description })
  })
}
