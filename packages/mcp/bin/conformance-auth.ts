/**
 * OAuth for the conformance auth/* scenarios. The conformance authorization server approves at
 * once and redirects with a code, so "sending the user to the browser" is one fetch that reads the
 * code from the redirect. A fetch middleware answers 401 (and 403 insufficient_scope) by running
 * the SDK's `auth()` flow (discovery, registration, PKCE, token) and retrying once.
 */
import {
  auth,
  ClientCredentialsProvider,
  CrossAppAccessProvider,
  extractWWWAuthenticateParams,
  type FetchLike,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  PrivateKeyJwtProvider,
  requestJwtAuthorizationGrant,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  UnauthorizedError
} from "@modelcontextprotocol/client"
import type { HttpOptions } from "../src/index.ts"

const REDIRECT = "http://localhost:3000/callback"
/** A client id metadata document URL, used when the server supports CIMD instead of registration. */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"

class ConformanceProvider implements OAuthClientProvider {
  private information: StoredOAuthClientInformation | undefined
  private stored: StoredOAuthTokens | undefined
  private verifier: string | undefined
  code: string | undefined
  /** The `iss` of the authorization response (RFC 9207), which the SDK checks against the server's issuer. */
  iss: string | undefined
  readonly clientMetadataUrl = CLIENT_METADATA_URL

  constructor(preRegistered: StoredOAuthClientInformation | undefined) {
    this.information = preRegistered
  }

  get redirectUrl(): string {
    return REDIRECT
  }

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "interlock-conformance", redirect_uris: [REDIRECT] }
  }

  clientInformation() {
    return this.information
  }

  saveClientInformation(information: StoredOAuthClientInformation): void {
    this.information = information
  }

  tokens() {
    return this.stored
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.stored = tokens
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    const response = await fetch(url, { redirect: "manual" })
    const location = response.headers.get("location")
    const params = location === null ? undefined : new URL(location).searchParams
    const code = params?.get("code") ?? null
    if (code === null) throw new Error("the authorization server did not redirect with a code")
    this.code = code
    this.iss = params?.get("iss") ?? undefined
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error("no code verifier saved")
    return this.verifier
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "tokens") this.stored = undefined
    if (scope === "all" || scope === "client") this.information = undefined
    if (scope === "all" || scope === "verifier") this.verifier = undefined
  }
}

/** What MCP_CONFORMANCE_CONTEXT may carry for a scenario. */
interface ScenarioContext {
  readonly client_id?: string
  readonly client_secret?: string
  readonly private_key_pem?: string
  readonly signing_algorithm?: string
  readonly idp_id_token?: string
  readonly idp_token_endpoint?: string
  readonly idp_client_id?: string
}

const scenarioContext = (): ScenarioContext => {
  try {
    return JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as ScenarioContext
  } catch {
    return {}
  }
}

/** Pre-registered client credentials, when the scenario gives them. */
const preRegistered = (context: ScenarioContext): StoredOAuthClientInformation | undefined =>
  typeof context.client_id === "string"
    ? {
      client_id: context.client_id,
      client_secret: context.client_secret,
      redirect_uris: [REDIRECT]
    } as StoredOAuthClientInformation
    : undefined

const withOAuth = (provider: ConformanceProvider, serverUrl: string): FetchLike => {
  const send = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers)
    const tokens = await provider.tokens()
    if (tokens !== undefined) headers.set("Authorization", `Bearer ${tokens.access_token}`)
    return fetch(input, { ...init, headers })
  }
  const authorize = async (response: Response): Promise<void> => {
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response)
    const options = { serverUrl, resourceMetadataUrl, scope, fetchFn: fetch }
    let result = await auth(provider, options)
    if (result === "REDIRECT") {
      result = await auth(provider, { ...options, authorizationCode: provider.code, iss: provider.iss })
    }
    if (result !== "AUTHORIZED") throw new UnauthorizedError(`authorization ended with ${result}`)
  }
  return async (input, init) => {
    let response = await send(input, init)
    for (let attempt = 0; attempt < 2 && (response.status === 401 || response.status === 403); attempt++) {
      if (response.status === 403 && extractWWWAuthenticateParams(response).error !== "insufficient_scope") break
      await authorize(response)
      response = await send(input, init)
    }
    return response
  }
}

/**
 * Extra HTTP options for an auth/* scenario: the SDK's machine-to-machine providers for the
 * client-credentials and cross-app-access extensions, otherwise a fetch that runs the
 * authorization-code flow on demand.
 */
export const conformanceAuth = (url: string, scenario: string): Partial<HttpOptions> => {
  const context = scenarioContext()
  const clientId = context.client_id ?? ""
  const clientSecret = context.client_secret ?? ""
  switch (scenario) {
    case "auth/client-credentials-basic":
      return { authProvider: new ClientCredentialsProvider({ clientId, clientSecret }) }
    case "auth/client-credentials-jwt":
      return {
        authProvider: new PrivateKeyJwtProvider({
          clientId,
          privateKey: context.private_key_pem ?? "",
          algorithm: context.signing_algorithm ?? "ES256"
        })
      }
    case "auth/cross-app-access-complete-flow":
      return {
        authProvider: new CrossAppAccessProvider({
          clientId,
          clientSecret,
          assertion: async (at) =>
            (await requestJwtAuthorizationGrant({
              tokenEndpoint: context.idp_token_endpoint ?? "",
              audience: at.authorizationServerUrl,
              resource: at.resourceUrl,
              idToken: context.idp_id_token ?? "",
              clientId: context.idp_client_id ?? ""
            })).jwtAuthGrant
        })
      }
    default:
      return { fetch: withOAuth(new ConformanceProvider(preRegistered(context)), url) }
  }
}
