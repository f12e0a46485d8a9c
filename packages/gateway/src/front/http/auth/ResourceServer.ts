/**
 * The gateway as an OAuth 2.1 resource server (listen.oauth): what the guard asks about a bearer
 * token that is no static token, and what its refusals and its metadata name. Built once the
 * gateway listens, since the default audience is its public MCP URL.
 */
import type { Principal } from "@interlock/core"
import { getOAuthProtectedResourceMetadataUrl } from "@modelcontextprotocol/server"
import { Effect } from "effect"
import type { OAuthPlan } from "../../../config/Plan.ts"
import { verifyAccessToken } from "./AccessToken.ts"
import type { ChallengeInfo } from "./BearerChallenge.ts"
import { makeKeySet } from "./KeySet.ts"
import type { KeysUnavailable, TokenRefused } from "./TokenRefused.ts"
import { cachedVerify } from "./VerifiedTokens.ts"

/** The resource server's interface. */
export interface ResourceServerShape extends ChallengeInfo {
  /** The resource's identifier, its public MCP URL (RFC 9728 `resource`). */
  readonly resource: string
  readonly issuer: string
  /** The principal of a valid access token; why it is refused, otherwise. */
  readonly verify: (token: string) => Effect.Effect<Principal, TokenRefused | KeysUnavailable>
}

/** The resource server for `plan`, whose public MCP URL is `mcpUrl`. */
export const makeResourceServer = (plan: OAuthPlan, mcpUrl: string): Effect.Effect<ResourceServerShape> =>
  Effect.map(makeKeySet({ issuer: plan.issuer, jwksUri: plan.jwksUri }), (keySet) => {
    const rules = {
      issuer: plan.issuer,
      audience: plan.audience ?? mcpUrl,
      principalClaim: plan.principalClaim,
      rolesClaim: plan.rolesClaim,
      requiredScopes: plan.requiredScopes
    }
    const verify = cachedVerify((token: string) => verifyAccessToken(token, rules, keySet))
    return {
      resource: mcpUrl,
      issuer: plan.issuer,
      resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(mcpUrl)),
      requiredScopes: plan.requiredScopes,
      verify: (token) => Effect.map(verify(token), (verified) => verified.principal)
    }
  })
