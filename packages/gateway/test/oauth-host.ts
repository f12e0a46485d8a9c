/**
 * A desktop host's side of the MCP authorization flow, as Claude Desktop and the like do it: an SDK
 * 2.4 `OAuthClientProvider` that registers itself (RFC 7591) as a public client with a loopback
 * redirect URI, keeps what the SDK hands it in memory, and, where a host would open the browser,
 * records the authorization URL for the test to visit. Its fetch records every request it makes.
 */
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens
} from "@modelcontextprotocol/client"

/** The host's loopback redirect URI; the test's browser stops at it, so nothing listens there. */
export const REDIRECT_URI = "http://127.0.0.1:33418/oauth/callback"

/** One request the host made: its method, URL and answer's status. */
export interface Sent {
  readonly method: string
  readonly url: string
  readonly status: number
}

/** An in-memory OAuthClientProvider, one per host (it holds one registration and one token set). */
export class DesktopHost implements OAuthClientProvider {
  /** Every authorization URL the SDK asked the host to open, in order. */
  readonly authorizations: Array<URL> = []
  /** Every request the host's transport made (MCP, discovery, registration, token), in order. */
  readonly sent: Array<Sent> = []
  /** The `state` values the host sent, in order. */
  readonly states: Array<string> = []
  private registered: StoredOAuthClientInformation | undefined
  private saved: StoredOAuthTokens | undefined
  private verifier: string | undefined
  private discovery: OAuthDiscoveryState | undefined

  readonly redirectUrl = REDIRECT_URI

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Desktop host",
      redirect_uris: [REDIRECT_URI],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      scope: "mcp:tools"
    }
  }

  /** The fetch the host's transport uses: the global one, recorded. */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init)
    const url = input instanceof Request ? input.url : String(input)
    this.sent.push({
      method: init?.method ?? (input instanceof Request ? input.method : "GET"),
      url,
      status: response.status
    })
    return response
  }

  state() {
    const state = crypto.randomUUID()
    this.states.push(state)
    return state
  }
  clientInformation() {
    return this.registered
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.registered = info
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens
  }
  redirectToAuthorization(url: URL) {
    this.authorizations.push(url)
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    if (this.verifier === undefined) throw new Error("no code verifier saved")
    return this.verifier
  }
  discoveryState() {
    return this.discovery
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state
  }
  /**
   * Replaces the access token with one the gateway refuses, keeping the refresh token: what an expired token looks like
   * to the host.
   */
  spoilAccessToken() {
    if (this.saved !== undefined) this.saved = { ...this.saved, access_token: "expired.access.token" }
  }
}
