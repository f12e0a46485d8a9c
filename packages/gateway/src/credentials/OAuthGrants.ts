/**
 * What the `oauth` form keeps, in this process: each principal's grant per server (the tokens, an opaque id, when
 * they came), the gateway's registration and discovery per server, and the connections under way. `providerFor`
 * is the SDK's OAuthClientProvider over it for one principal and server, so the SDK's `auth` does discovery,
 * registration, PKCE, the resource indicator, the issuer check and the refresh.
 */
import type * as Sdk from "@modelcontextprotocol/client"
import { Redacted } from "effect"
import { createHash, randomUUID } from "node:crypto"
import type { OAuthClientPlan } from "../config/Plan.ts"
import type { GrantVault } from "./GrantVault.ts"
import { newestEntries } from "./NewestEntries.ts"

/** One principal's grant toward one server: its tokens, an id for the audit (never a token) and when it came. */
export interface Grant {
  readonly tokens: Sdk.StoredOAuthTokens
  readonly id: string
  readonly obtainedAtMs: number
}

/** A connection under way: who started it, for which server, the browser it is bound to, and its PKCE verifier. */
export interface Flow {
  readonly id: string
  readonly principal: string
  readonly server: string
  /** The SHA-256 of the binding cookie's value that the browser which started the flow holds. */
  readonly binding: string
  readonly expiresAtMs: number
  /** The sealed `state` the authorization server sends back. */
  readonly state: string
  verifier?: string
}

/** The most grants and flows kept (oldest out first): many principals must not fill memory. */
const MAX_ENTRIES = 10_000

/** A grant as the console and `interlock credentials` show it: whose, toward which server, its id, when; no token. */
export interface Connection {
  readonly principal: string
  readonly server: string
  readonly grant: string
  readonly obtainedAtMs: number
}

/** The SHA-256 of a binding cookie's value, hex. */
export const bindingHash = (value: string): string => createHash("sha256").update(value).digest("hex")

const grantKey = (principal: string, server: string) => `${principal}\u0000${server}`

/**
 * The store of one gateway: grants in memory, or, with a vault, in the vault only (read on each use, so that a
 * grant revoked there is gone at once); registrations in memory, written through to the vault and read back at start.
 */
export const makeGrantStore = (vault?: GrantVault) => {
  const grants = newestEntries<Grant & { readonly principal: string; readonly server: string }>(MAX_ENTRIES)
  const flows = newestEntries<Flow>(MAX_ENTRIES)
  const clients = new Map<string, Sdk.StoredOAuthClientInformation>()
  const discovery = new Map<string, Sdk.OAuthDiscoveryState>()
  for (const { information, server } of vault?.clients() ?? []) {
    clients.set(server, information as Sdk.StoredOAuthClientInformation)
  }
  /** A grant from the vault, which is the truth when there is one (a grant revoked there is gone at once). */
  const stored = (principal: string, server: string): Grant | undefined => {
    const found = vault?.grant(principal, server)
    return found === undefined
      ? undefined
      : { tokens: found.tokens as Sdk.StoredOAuthTokens, id: found.id, obtainedAtMs: found.obtainedAtMs }
  }
  return {
    grant: (principal: string, server: string) =>
      vault === undefined ? grants.get(grantKey(principal, server)) : stored(principal, server),
    saveGrant: (principal: string, server: string, tokens: Sdk.StoredOAuthTokens, nowMs: number) => {
      const grant = { tokens, id: randomUUID().replaceAll("-", "").slice(0, 16), obtainedAtMs: nowMs }
      if (vault === undefined) grants.set(grantKey(principal, server), { ...grant, principal, server })
      else vault.saveGrant({ principal, server, ...grant })
    },
    forgetGrant: (principal: string, server: string) => {
      if (vault === undefined) grants.delete(grantKey(principal, server))
      else vault.forgetGrant(principal, server)
    },
    /** Every grant held (in the vault: those that open with its key). */
    connections: (): ReadonlyArray<Connection> =>
      vault === undefined
        ? [...grants.values()].map(({ id, obtainedAtMs, principal, server }) => ({
          principal,
          server,
          grant: id,
          obtainedAtMs
        }))
        : vault.list({}).flatMap((row) =>
          row.opens
            ? [{ principal: row.principal, server: row.server, grant: row.id, obtainedAtMs: row.obtainedAtMs }]
            : []
        ),
    addFlow: (flow: Flow) => flows.set(flow.id, flow),
    /** The flow `id`, taken: a flow completes once. */
    takeFlow: (id: string): Flow | undefined => {
      const flow = flows.get(id)
      flows.delete(id)
      return flow
    },
    client: (server: string) => clients.get(server),
    saveClient: (server: string, information: Sdk.StoredOAuthClientInformation) => {
      vault?.saveClient(server, information)
      clients.set(server, information)
    },
    forgetClient: (server: string) => {
      vault?.forgetClient(server)
      clients.delete(server)
    },
    discovery
  }
}

/** The store's interface. */
export type GrantStore = ReturnType<typeof makeGrantStore>

/** Where one provider sends the browser: the authorization URL the SDK built, once it has. */
export interface Redirect {
  url?: URL
}

/** What a provider needs besides the store. */
export interface ProviderContext {
  readonly principal: string
  readonly server: string
  readonly plan: OAuthClientPlan
  readonly callbackUrl: string
  readonly now: () => number
  /** The connection under way, when the provider starts or completes one. */
  readonly flow?: Flow | undefined
  readonly redirect: Redirect
}

/** The gateway's client metadata toward one server's authorization server (dynamic registration, the CIMD). */
export const clientMetadata = (plan: OAuthClientPlan, callbackUrl: string): Sdk.OAuthClientMetadata => ({
  client_name: "Interlock gateway",
  redirect_uris: [callbackUrl],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: plan.clientSecret === undefined ? "none" : "client_secret_basic",
  ...(plan.scope === undefined ? {} : { scope: plan.scope })
})

/** The SDK's provider for one principal and server over `store`. */
export const providerFor = (store: GrantStore, context: ProviderContext): Sdk.OAuthClientProvider => {
  const { plan, principal, server, flow } = context
  const configured: Sdk.StoredOAuthClientInformation | undefined = plan.clientId === undefined
    ? undefined
    : {
      client_id: plan.clientId,
      ...(plan.clientSecret === undefined ? {} : { client_secret: Redacted.value(plan.clientSecret) })
    }
  return {
    redirectUrl: context.callbackUrl,
    ...(plan.clientMetadataUrl === undefined ? {} : { clientMetadataUrl: plan.clientMetadataUrl }),
    clientMetadata: clientMetadata(plan, context.callbackUrl),
    state: () => {
      if (flow === undefined) throw new Error("no connection is under way")
      return flow.state
    },
    clientInformation: () => configured ?? store.client(server),
    saveClientInformation: (information) => store.saveClient(server, information),
    tokens: () => store.grant(principal, server)?.tokens,
    saveTokens: (tokens) => store.saveGrant(principal, server, tokens, context.now()),
    redirectToAuthorization: (url) => {
      context.redirect.url = url
    },
    saveCodeVerifier: (verifier) => {
      if (flow !== undefined) flow.verifier = verifier
    },
    codeVerifier: () => {
      if (flow?.verifier === undefined) throw new Error("no code verifier for this connection")
      return flow.verifier
    },
    discoveryState: () => store.discovery.get(server),
    saveDiscoveryState: (state) => void store.discovery.set(server, state),
    invalidateCredentials: (scope) => {
      if (scope === "all" || scope === "tokens") store.forgetGrant(principal, server)
      if ((scope === "all" || scope === "client") && configured === undefined) store.forgetClient(server)
      if (scope === "all" || scope === "discovery") store.discovery.delete(server)
    }
  }
}
