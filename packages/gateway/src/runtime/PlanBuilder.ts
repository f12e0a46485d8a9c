/**
 * The plan builder: a loaded config resolved into a plan (config/Plan.ts). Secrets are read (as
 * Redacted), the built-in hooks compiled, relative paths resolved against the config's directory,
 * and the listen address checked. Every problem is a ConfigError naming the path at fault.
 */
import { ConfigError } from "@interlock/core"
import { Redacted } from "effect"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import type { ServerConfig } from "../config/Config.ts"
import { configHash } from "../config/ConfigHash.ts"
import type { LoadedConfig } from "../config/ConfigLoader.ts"
import { parseOrigin } from "../config/Origin.ts"
import {
  type ApprovalsPlan,
  type AuditPlan,
  authorizationUrl,
  bindNames,
  DEFAULT_AUDIT_PATH,
  DEFAULT_LISTEN,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_LIMITS,
  isLoopback,
  type ListenPlan,
  MIN_STATE_KEY_LENGTH,
  type OAuthPlan,
  parseHostPort,
  type Plan,
  type ServerEndpointPlan,
  type ServerPlan
} from "../config/Plan.ts"
import { CONSOLE_TOKEN_HOLDER } from "../config/PrincipalNames.ts"
import { readSecret } from "../config/Secrets.ts"
import { builtinHooks, mergeHooks } from "../governance/BuiltinHooks.ts"
import { cedarPolicyFile } from "../governance/PolicyLayer.ts"
import { type AuthContext, readIdentityKey, resolveGrantVault, resolveServerAuth } from "./ServerAuthPlan.ts"

const resolveServer = (
  name: string,
  server: ServerConfig,
  baseDir: string,
  env: Readonly<Record<string, string | undefined>>
): ServerEndpointPlan | ConfigError => {
  if ("command" in server) {
    return {
      _tag: "stdio",
      command: server.command,
      args: server.args ?? [],
      env: server.env ?? {},
      cwd: path.resolve(baseDir, server.cwd ?? ".")
    }
  }
  try {
    const url = new URL(server.url)
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("scheme")
  } catch {
    return new ConfigError({ path: `servers.${name}.url`, detail: "must be an http(s) URL" })
  }
  const token = server.token === undefined ? undefined : readSecret(server.token, `servers.${name}.token`, env)
  if (token instanceof ConfigError) return token
  return { _tag: "http", url: server.url, headers: server.headers ?? {}, token }
}

const resolveOAuth = (listen: NonNullable<LoadedConfig["config"]["listen"]>): OAuthPlan | ConfigError | undefined => {
  const oauth = listen.oauth
  if (oauth === undefined) return undefined
  const issuer = authorizationUrl(oauth.issuer, "listen.oauth.issuer")
  if (issuer instanceof ConfigError) return issuer
  const jwksUri = oauth.jwksUri === undefined ? undefined : authorizationUrl(oauth.jwksUri, "listen.oauth.jwksUri")
  if (jwksUri instanceof ConfigError) return jwksUri
  return {
    issuer,
    audience: oauth.audience,
    jwksUri,
    principalClaim: oauth.principalClaim ?? "sub",
    rolesClaim: oauth.rolesClaim,
    requiredScopes: oauth.requiredScopes ?? []
  }
}

const resolveListen = (
  loaded: LoadedConfig,
  override: string | undefined,
  env: Readonly<Record<string, string | undefined>>
): ListenPlan | ConfigError => {
  const listen = loaded.config.listen ?? {}
  const address = parseHostPort(
    override ?? listen.http ?? DEFAULT_LISTEN,
    override === undefined ? "listen.http" : "--http"
  )
  if (address instanceof ConfigError) return address
  const principals = new Map<string, { readonly id: string; readonly roles: ReadonlyArray<string> | undefined }>()
  const token = listen.token === undefined ? undefined : readSecret(listen.token, "listen.token", env)
  if (token instanceof ConfigError) return token
  if (token !== undefined) principals.set(Redacted.value(token), { id: "default", roles: undefined })
  for (const [id, principal] of Object.entries(listen.principals ?? {})) {
    const secret = readSecret(principal.token, `listen.principals.${id}.token`, env)
    if (secret instanceof ConfigError) return secret
    const value = Redacted.value(secret)
    if (principals.has(value)) {
      return new ConfigError({
        path: `listen.principals.${id}.token`,
        detail: "is the same token as another principal's"
      })
    }
    principals.set(value, { id, roles: principal.roles })
  }
  const oauth = resolveOAuth(listen)
  if (oauth instanceof ConfigError) return oauth
  const publicUrl = listen.publicUrl === undefined ? undefined : parseOrigin(listen.publicUrl)
  if (listen.publicUrl !== undefined && publicUrl === undefined) {
    return new ConfigError({
      path: "listen.publicUrl",
      detail: "must be an origin, scheme://host[:port], for example https://mcp.example.com"
    })
  }
  if (oauth !== undefined && publicUrl === undefined && !isLoopback(address.host)) {
    return new ConfigError({
      path: "listen.publicUrl",
      detail:
        "must be set with listen.oauth on an address that is not loopback: clients learn the gateway's URL from it"
    })
  }
  if (!isLoopback(address.host) && principals.size === 0 && oauth === undefined) {
    return new ConfigError({
      path: override === undefined ? "listen.http" : "--http",
      detail:
        `binds ${address.host}, which is not loopback: set listen.token, listen.principals or listen.oauth so that ` +
        `only holders of a token can call tools`
    })
  }
  const consoleToken = listen.consoleToken === undefined
    ? undefined
    : readSecret(listen.consoleToken, "listen.consoleToken", env)
  if (consoleToken instanceof ConfigError) return consoleToken
  if (consoleToken !== undefined && principals.has(Redacted.value(consoleToken))) {
    return new ConfigError({
      path: "listen.consoleToken",
      detail: "is the same token as a principal's: the console token must be its own"
    })
  }
  if (
    consoleToken !== undefined && [...principals.values()].some((principal) => principal.id === CONSOLE_TOKEN_HOLDER)
  ) {
    return new ConfigError({
      path: `listen.principals.${CONSOLE_TOKEN_HOLDER}`,
      detail: "is the name the audit gives the console token's holder: choose another"
    })
  }
  const publicHost = publicUrl === undefined ? [] : [new URL(publicUrl).hostname]
  const hosts = [...new Set([...bindNames(address.host), ...publicHost])]
  const origins = listen.allowedOrigins?.map(parseOrigin)
  const badOrigin = origins?.indexOf(undefined) ?? -1
  if (badOrigin >= 0) {
    return new ConfigError({
      path: `listen.allowedOrigins[${badOrigin}]`,
      detail: "must be an origin, scheme://host[:port], for example http://localhost:3000"
    })
  }
  return {
    host: address.host,
    port: address.port,
    token,
    principals,
    allowedHosts: listen.allowedHosts ?? hosts,
    allowedOrigins: origins as ReadonlyArray<string> | undefined,
    resumable: listen.resumable === true,
    sessions: {
      idleMs: listen.sessionIdleSeconds === undefined
        ? DEFAULT_SESSION_LIMITS.idleMs
        : listen.sessionIdleSeconds * 1_000,
      maxSessions: listen.maxSessions ?? DEFAULT_SESSION_LIMITS.maxSessions,
      maxPerPrincipal: listen.maxSessionsPerPrincipal ?? DEFAULT_SESSION_LIMITS.maxPerPrincipal
    },
    consoleToken,
    publicUrl,
    oauth
  }
}

const resolveApprovals = (
  config: LoadedConfig["config"],
  listen: ListenPlan,
  env: Readonly<Record<string, string | undefined>>
): ApprovalsPlan | ConfigError => {
  const approvals = config.approvals ?? {}
  const approvers = approvals.approvers ?? []
  const known = new Set([...listen.principals.values()].map((principal) => principal.id))
  for (const [index, approver] of approvers.entries()) {
    const role = approver.startsWith("role:") ? approver.slice(5) : undefined
    // An OAuth gateway's principals are named by the authorization server, so any name may be one.
    if (role === "" || (role === undefined && !known.has(approver) && listen.oauth === undefined)) {
      return new ConfigError({
        path: `approvals.approvers[${index}]`,
        detail: "must name a principal of listen.principals (or listen.token's \"default\"), or be role:NAME"
      })
    }
  }
  const via = approvals.via ?? "auto"
  if (via === "elicitation" && approvers.length > 0) {
    return new ConfigError({
      path: "approvals.via",
      detail: "elicitation asks the caller's own host, and a caller never approves its own call: use console or auto " +
        "with approvers"
    })
  }
  const stateKey = approvals.stateKey === undefined
    ? undefined
    : readSecret(approvals.stateKey, "approvals.stateKey", env)
  if (stateKey instanceof ConfigError) return stateKey
  if (stateKey !== undefined && Redacted.value(stateKey).length < MIN_STATE_KEY_LENGTH) {
    return new ConfigError({
      path: "approvals.stateKey",
      detail: `must be at least ${MIN_STATE_KEY_LENGTH} characters (for example \`openssl rand -base64 32\`)`
    })
  }
  return {
    timeoutMs: Math.round((approvals.timeoutSeconds ?? 120) * 1000),
    route: approvers.length > 0 ? "console" : via,
    approvers,
    stateKey
  }
}

/**
 * A Postgres URL, literal or `env:NAME`, as a secret; a ConfigError naming `where` (never the value) when it is not
 * one.
 */
export const readPostgresUrl = (
  value: string,
  where: string,
  env: Readonly<Record<string, string | undefined>> = process.env
): Redacted.Redacted<string> | ConfigError => {
  const url = readSecret(value, where, env)
  if (url instanceof ConfigError) return url
  return /^postgres(?:ql)?:\/\//.test(Redacted.value(url))
    ? url
    : new ConfigError({ path: where, detail: "must be a postgres:// or postgresql:// URL" })
}

/**
 * Where a config's audit rows go: SQLite at `audit.path` (default {@link DEFAULT_AUDIT_PATH})
 * resolved against the config's directory, Postgres at `audit.postgres`, or off. The gateway,
 * `claude-hook`, `audit` and `replay` all find the store through this one function.
 */
export const auditPlan = (
  loaded: LoadedConfig,
  env: Readonly<Record<string, string | undefined>> = process.env
): AuditPlan | ConfigError => {
  const audit = loaded.config.audit ?? {}
  const capture = audit.capture ?? "metadata"
  if (audit.enabled === false) return { path: undefined, postgres: undefined, capture }
  if (audit.postgres === undefined) {
    const file = audit.path === ":memory:" ? ":memory:" : path.resolve(loaded.baseDir, audit.path ?? DEFAULT_AUDIT_PATH)
    return { path: file, postgres: undefined, capture }
  }
  if (audit.path !== undefined) {
    return new ConfigError({ path: "audit", detail: "set either path (SQLite) or postgres, not both" })
  }
  const postgres = readPostgresUrl(audit.postgres, "audit.postgres", env)
  return postgres instanceof ConfigError ? postgres : { path: undefined, postgres, capture }
}

// The Cedar file's text; unreadable, the policy Layer reads it again and fails with the file's name.
const cedarText = (file: string): string | undefined => {
  try {
    return readFileSync(file, "utf8")
  } catch {
    return undefined
  }
}

/** Options of {@link makePlan}. */
export interface PlanOptions {
  /** Overrides listen.http (the CLI's --http). */
  readonly http?: string | undefined
  readonly env?: Readonly<Record<string, string | undefined>>
}

/** Resolves a loaded config into a plan. */
export const makePlan = (loaded: LoadedConfig, options: PlanOptions = {}): Plan | ConfigError => {
  const env = options.env ?? process.env
  const config = loaded.config
  const listen = resolveListen(loaded, options.http, env)
  if (listen instanceof ConfigError) return listen
  const authContext: AuthContext = {
    baseDir: loaded.baseDir,
    env,
    principals: listen.oauth === undefined
      ? new Set([...listen.principals.values()].map((principal) => principal.id))
      : undefined,
    oauth: listen.oauth !== undefined
  }
  const servers = new Map<string, ServerPlan>()
  for (const [name, server] of Object.entries(config.servers)) {
    if (name.includes("__") || name.includes("/")) {
      return new ConfigError({
        path: `servers.${name}`,
        detail: "a server name must not contain \"__\" or \"/\" (they separate server and tool)"
      })
    }
    const resolved = resolveServer(name, server, loaded.baseDir, env)
    if (resolved instanceof ConfigError) return resolved
    const auth = resolveServerAuth(name, server, authContext)
    if (auth instanceof ConfigError) return auth
    servers.set(name, {
      ...resolved,
      auth: auth.auth,
      sessions: auth.sessions,
      maxSessions: server.maxSessions ?? DEFAULT_MAX_SESSIONS,
      protocol: server.protocol ?? "auto"
    })
  }
  if (config.telemetry?.otlp !== undefined && !/^https?:\/\/[^/\s]+/.test(config.telemetry.otlp)) {
    return new ConfigError({
      path: "telemetry.otlp",
      detail: "must be an http(s) URL, for example http://127.0.0.1:4318"
    })
  }
  const builtins = builtinHooks(config)
  if (builtins instanceof ConfigError) return builtins
  const cedar = cedarPolicyFile(config, loaded.baseDir)
  if (cedar instanceof ConfigError) return cedar
  const cedarPolicy = cedar === undefined ? undefined : { file: cedar, text: cedarText(cedar) }
  const audit = auditPlan(loaded, env)
  if (audit instanceof ConfigError) return audit
  const approvals = resolveApprovals(config, listen, env)
  if (approvals instanceof ConfigError) return approvals
  const statePostgres = config.state?.postgres === undefined
    ? audit.postgres
    : readPostgresUrl(config.state.postgres, "state.postgres", env)
  if (statePostgres instanceof ConfigError) return statePostgres
  const identityKey = config.credentials?.identityKey === undefined
    ? undefined
    : readIdentityKey(config.credentials.identityKey, loaded.baseDir, env)
  if (identityKey instanceof ConfigError) return identityKey
  const grantVault = resolveGrantVault(config.credentials, loaded.baseDir, env)
  if (grantVault instanceof ConfigError) return grantVault
  return {
    servers,
    namespace: config.namespace ?? "auto",
    hooks: mergeHooks(builtins.hooks, loaded.hooks),
    redactions: builtins.redactions,
    loaded,
    pinTools: config.pinTools === true,
    audit,
    statePostgres,
    approvals,
    listen,
    telemetry: {
      otlp: config.telemetry?.otlp,
      serviceName: config.telemetry?.serviceName ?? "interlock-gateway",
      exportIntervalMs: config.telemetry?.exportIntervalMs ?? 5_000
    },
    hookTimeoutMs: config.hookTimeoutMs,
    callTimeoutMs: config.callTimeoutMs,
    identityKey,
    grantVault,
    configHash: configHash(config, cedarPolicy?.text),
    cedar: cedarPolicy
  }
}
