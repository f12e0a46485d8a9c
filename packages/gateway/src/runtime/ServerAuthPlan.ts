/**
 * `servers.<id>.auth` resolved into an AuthPlan: secrets read (`env:`, `file:`), URLs checked, and
 * the forms checked together. Which may be combined: `clientCredentials`, `exchange` or `oauth` (one of them,
 * and none with a static `token`), `perPrincipal` alone or with `exchange`, `identity` with any.
 * A per-principal credential needs per-principal sessions. Every problem names its path.
 */
import { ConfigError } from "@interlock/core"
import { Redacted } from "effect"
import { createPrivateKey } from "node:crypto"
import * as path from "node:path"
import type { HttpAuthConfig, StdioAuthConfig } from "../config/AuthConfig.ts"
import type { ServerConfig } from "../config/Config.ts"
import {
  authorizationUrl,
  type AuthPlan,
  DEFAULT_IDENTITY_HEADER,
  DEFAULT_IDENTITY_TTL_SECONDS,
  DEFAULT_SESSIONS,
  NO_AUTH,
  type OAuthClientPlan,
  perPrincipalAuth,
  type PrincipalSecretsPlan,
  type SessionsPlan,
  type TokenClientPlan
} from "../config/Plan.ts"
import { readSecretOrFile } from "../config/Secrets.ts"

/** What resolving a server's auth needs to know of the rest of the config. */
export interface AuthContext {
  readonly baseDir: string
  readonly env: Readonly<Record<string, string | undefined>>
  /** The principals' names, when they are all known (no listen.oauth: an authorization server names the rest). */
  readonly principals: ReadonlySet<string> | undefined
  /** Whether listen.oauth is set (principals with access tokens exist). */
  readonly oauth: boolean
}

/** An HTTP field name (RFC 9110 token). */
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/** Headers the MCP client sets itself on every request: no auth form may set them. */
const RESERVED_HEADERS = new Set([
  "content-type",
  "content-length",
  "accept",
  "host",
  "mcp-session-id",
  "last-event-id"
])

const reservedHeader = (name: string): boolean => {
  const lower = name.toLowerCase()
  return RESERVED_HEADERS.has(lower) || lower.startsWith("mcp-")
}

/** An environment variable's name: no `=`, no NUL. */
const ENV_NAME = /^[^=\0]+$/

const absoluteUri = (text: string, where: string): string | ConfigError => {
  try {
    new URL(text)
    return text
  } catch {
    return new ConfigError({ path: where, detail: "must be an absolute URI, for example https://mcp.example.com/mcp" })
  }
}

const tokenClient = (
  config: { tokenUrl: string; clientId: string; clientSecret: string; scope?: string; resource?: string },
  where: string,
  context: AuthContext
): TokenClientPlan | ConfigError => {
  const tokenUrl = authorizationUrl(config.tokenUrl, `${where}.tokenUrl`)
  if (tokenUrl instanceof ConfigError) return tokenUrl
  const clientSecret = readSecretOrFile(config.clientSecret, `${where}.clientSecret`, context.env, context.baseDir)
  if (clientSecret instanceof ConfigError) return clientSecret
  const resource = config.resource === undefined ? undefined : absoluteUri(config.resource, `${where}.resource`)
  if (resource instanceof ConfigError) return resource
  return { tokenUrl, clientId: config.clientId, clientSecret, scope: config.scope, resource }
}

const oauthClient = (
  config: NonNullable<HttpAuthConfig["oauth"]>,
  where: string,
  context: AuthContext
): OAuthClientPlan | ConfigError => {
  if (config.clientSecret !== undefined && config.clientId === undefined) {
    return new ConfigError({ path: `${where}.clientSecret`, detail: "is the secret of clientId: set clientId too" })
  }
  const clientSecret = config.clientSecret === undefined
    ? undefined
    : readSecretOrFile(config.clientSecret, `${where}.clientSecret`, context.env, context.baseDir)
  if (clientSecret instanceof ConfigError) return clientSecret
  const metadata = config.clientMetadataUrl
  if (metadata !== undefined && !isDocumentUrl(metadata)) {
    return new ConfigError({
      path: `${where}.clientMetadataUrl`,
      detail: "must be an https URL with a path, for example https://gateway.example.com/oauth/client.json"
    })
  }
  return { scope: config.scope, clientId: config.clientId, clientSecret, clientMetadataUrl: metadata }
}

/** Whether a client metadata document's URL is one an authorization server takes as a client id: https, a path. */
const isDocumentUrl = (text: string): boolean => {
  try {
    const url = new URL(text)
    return url.protocol === "https:" && url.pathname !== "/"
  } catch {
    return false
  }
}

const perPrincipal = (
  entries:
    | Readonly<Record<string, Readonly<Partial<Record<"headers" | "env", Readonly<Record<string, string>>>>>>>
    | undefined,
  kind: "headers" | "env",
  where: string,
  context: AuthContext
): ReadonlyArray<PrincipalSecretsPlan> | ConfigError => {
  const out: Array<PrincipalSecretsPlan> = []
  for (const [who, entry] of Object.entries(entries ?? {})) {
    const at = `${where}.${who}`
    const role = who.startsWith("role:") ? who.slice("role:".length) : undefined
    if (role === "") return new ConfigError({ path: at, detail: "role: must be followed by a role name" })
    if (role === undefined && context.principals !== undefined && !context.principals.has(who)) {
      return new ConfigError({
        path: at,
        detail: "must name a principal of listen.principals (or listen.token's \"default\"), or be role:NAME"
      })
    }
    const given = entry[kind] ?? {}
    const values: Record<string, Redacted.Redacted<string>> = {}
    for (const [name, value] of Object.entries(given)) {
      if (kind === "headers" && (!FIELD_NAME.test(name) || reservedHeader(name))) {
        return new ConfigError({
          path: `${at}.headers.${name}`,
          detail: "must be an HTTP header name other than Content-Type, Accept, Host and the Mcp-* headers"
        })
      }
      if (kind === "env" && !ENV_NAME.test(name)) {
        return new ConfigError({ path: `${at}.env.${name}`, detail: "must be a variable name without = or NUL" })
      }
      const secret = readSecretOrFile(value, `${at}.${kind}.${name}`, context.env, context.baseDir)
      if (secret instanceof ConfigError) return secret
      values[name] = secret
    }
    out.push({ principal: role === undefined ? who : undefined, role, values })
  }
  return out
}

const httpAuth = (
  name: string,
  server: { readonly token?: string },
  auth: HttpAuthConfig,
  context: AuthContext
): AuthPlan | ConfigError => {
  const where = `servers.${name}.auth`
  const minting = (["clientCredentials", "exchange", "oauth"] as const).filter((form) => auth[form] !== undefined)
  if (minting.length > 1) {
    return new ConfigError({
      path: where,
      detail: `set one of ${minting.join(", ")}, not several: each mints the Authorization header`
    })
  }
  const minted = minting[0]
  if (minted !== undefined && server.token !== undefined) {
    return new ConfigError({
      path: `servers.${name}.token`,
      detail: `is a static Authorization token, and auth.${minted} mints one: set one of them`
    })
  }
  if ((auth.clientCredentials !== undefined || auth.oauth !== undefined) && auth.perPrincipal !== undefined) {
    return new ConfigError({
      path: `${where}.perPrincipal`,
      detail: `goes alone or with exchange (for principals without an access token), not with ${minted}`
    })
  }
  const oauth = auth.oauth === undefined ? undefined : oauthClient(auth.oauth, `${where}.oauth`, context)
  if (oauth instanceof ConfigError) return oauth
  if (auth.exchange !== undefined && !context.oauth) {
    return new ConfigError({
      path: `${where}.exchange`,
      detail: "trades the caller's OAuth access token for one of this server's: it needs listen.oauth"
    })
  }
  const clientCredentials = auth.clientCredentials === undefined
    ? undefined
    : tokenClient(auth.clientCredentials, `${where}.clientCredentials`, context)
  if (clientCredentials instanceof ConfigError) return clientCredentials
  const exchange = auth.exchange === undefined ? undefined : tokenClient(auth.exchange, `${where}.exchange`, context)
  if (exchange instanceof ConfigError) return exchange
  const principals = perPrincipal(auth.perPrincipal, "headers", `${where}.perPrincipal`, context)
  if (principals instanceof ConfigError) return principals
  const identity = auth.identity
  const header = identity?.header ?? DEFAULT_IDENTITY_HEADER
  if (
    identity !== undefined && (!FIELD_NAME.test(header) || reservedHeader(header) || /^authorization$/i.test(header))
  ) {
    return new ConfigError({
      path: `${where}.identity.header`,
      detail: "must be an HTTP header name other than Authorization, Content-Type, Accept, Host and the Mcp-* headers"
    })
  }
  return {
    clientCredentials,
    exchange: exchange === undefined ? undefined : { ...exchange, audience: auth.exchange?.audience },
    oauth,
    perPrincipal: principals,
    identity: identity === undefined
      ? undefined
      : { header, audience: identity.audience, ttlSeconds: identity.ttlSeconds ?? DEFAULT_IDENTITY_TTL_SECONDS }
  }
}

const stdioAuth = (name: string, auth: StdioAuthConfig, context: AuthContext): AuthPlan | ConfigError => {
  const principals = perPrincipal(auth.perPrincipal, "env", `servers.${name}.auth.perPrincipal`, context)
  return principals instanceof ConfigError ? principals : { ...NO_AUTH, perPrincipal: principals }
}

/** A server's auth, and the sessions it runs with: a per-principal credential gets per-principal sessions. */
export const resolveServerAuth = (
  name: string,
  server: ServerConfig,
  context: AuthContext
): { readonly auth: AuthPlan; readonly sessions: SessionsPlan["sessions"] } | ConfigError => {
  const given = server.auth
  const auth = given === undefined
    ? NO_AUTH
    : "command" in server
    ? stdioAuth(name, given as StdioAuthConfig, context)
    : httpAuth(name, server, given as HttpAuthConfig, context)
  if (auth instanceof ConfigError) return auth
  if (!perPrincipalAuth(auth)) return { auth, sessions: server.sessions ?? DEFAULT_SESSIONS }
  if (
    "command" in server
      ? server.sessions !== "per-principal"
      : server.sessions !== undefined && server.sessions !== "per-principal"
  ) {
    return new ConfigError({
      path: `servers.${name}.sessions`,
      detail: "command" in server
        ? "must be \"per-principal\" with auth.perPrincipal: each principal's secrets go to a process of its own"
        : "must be \"per-principal\" (or unset) with auth.exchange, auth.oauth or auth.perPrincipal: a principal's " +
          "credential never carries another's requests"
    })
  }
  return { auth, sessions: "per-principal" }
}

/**
 * `credentials.identityKey` read and checked: a PKCS #8 PEM private key of a kind identity tokens
 * are signed with (EC P-256, RSA or Ed25519). The error never quotes the key.
 */
export const readIdentityKey = (
  value: string,
  baseDir: string,
  env: Readonly<Record<string, string | undefined>>
): Redacted.Redacted<string> | ConfigError => {
  const where = "credentials.identityKey"
  const key = readSecretOrFile(value, where, env, baseDir)
  if (key instanceof ConfigError) return key
  const bad = new ConfigError({
    path: where,
    detail: "must be a PKCS #8 PEM private key (-----BEGIN PRIVATE KEY-----): EC P-256, RSA or Ed25519"
  })
  const pem = Redacted.value(key)
  if (!pem.includes("-----BEGIN PRIVATE KEY-----")) return bad
  try {
    const parsed = createPrivateKey({ key: pem, format: "pem" })
    const kind = parsed.asymmetricKeyType
    const curve = parsed.asymmetricKeyDetails?.namedCurve
    return kind === "rsa" || kind === "ed25519" || (kind === "ec" && curve === "prime256v1") ? key : bad
  } catch {
    return bad
  }
}

/** The shortest `credentials.key` accepted, in characters. */
const MIN_VAULT_KEY_LENGTH = 32

/** `credentials.path` and `credentials.key` read and checked together: a path needs a key of at least 32 characters. */
export const resolveGrantVault = (
  credentials: { readonly path?: string; readonly key?: string } | undefined,
  baseDir: string,
  env: Readonly<Record<string, string | undefined>>
): { readonly path: string; readonly key: Redacted.Redacted<string> } | undefined | ConfigError => {
  if (credentials?.path === undefined) return undefined
  if (credentials.key === undefined) {
    return new ConfigError({
      path: "credentials.key",
      detail: "must be set with credentials.path: the grants kept there are encrypted with it"
    })
  }
  const key = readSecretOrFile(credentials.key, "credentials.key", env, baseDir)
  if (key instanceof ConfigError) return key
  if (Redacted.value(key).length < MIN_VAULT_KEY_LENGTH) {
    return new ConfigError({ path: "credentials.key", detail: `must be at least ${MIN_VAULT_KEY_LENGTH} characters` })
  }
  return { path: path.resolve(baseDir, credentials.path), key }
}
