/**
 * A gateway plan, as data: what the gateway runs, resolved from a loaded config by the plan builder
 * (runtime/PlanBuilder.ts), and the defaults and small parsers its fields are made with. It imports
 * only core and the config itself, so every layer may read a plan.
 */
import { ConfigError, type HooksConfig } from "@interlock/core"
import type { Redacted } from "effect"
import type { LoadedConfig } from "./ConfigLoader.ts"
import type { Redaction } from "./Redaction.ts"

/** A downstream server, resolved. */
export type ServerPlan = ServerEndpointPlan & SessionsPlan & { readonly auth: AuthPlan }

/** How a downstream server is reached. */
export type ServerEndpointPlan =
  | {
    readonly _tag: "stdio"
    readonly command: string
    readonly args: ReadonlyArray<string>
    readonly env: Readonly<Record<string, string>>
    readonly cwd: string
  }
  | {
    readonly _tag: "http"
    readonly url: string
    readonly headers: Readonly<Record<string, string>>
    readonly token: Redacted.Redacted<string> | undefined
  }

/** How a server's sessions are shared among host connections and principals (`servers.<id>.sessions`). */
export interface SessionsPlan {
  readonly sessions: "shared" | "per-host" | "per-principal"
  readonly maxSessions: number
  /** `servers.<id>.protocol`: the revision spoken to the server (default `auto`). */
  readonly protocol: "auto" | "legacy" | "2026-07-28"
}

/** The default of `servers.<id>.sessions`: one session for every host (see the README for why). */
export const DEFAULT_SESSIONS = "shared"

/** The default of `servers.<id>.maxSessions`: the most per-host sessions of one server. */
export const DEFAULT_MAX_SESSIONS = 16

/** A token endpoint the gateway is a client of (`auth.clientCredentials`, `auth.exchange`), its secret read. */
export interface TokenClientPlan {
  readonly tokenUrl: string
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  readonly scope: string | undefined
  readonly resource: string | undefined
}

/** `auth.exchange`, resolved. */
export interface ExchangePlan extends TokenClientPlan {
  readonly audience: string | undefined
}

/**
 * One entry of `auth.perPrincipal`: a principal's name or a role, and its headers (HTTP) or environment (stdio), read.
 */
export interface PrincipalSecretsPlan {
  readonly principal: string | undefined
  readonly role: string | undefined
  readonly values: Readonly<Record<string, Redacted.Redacted<string>>>
}

/** `auth.identity`, resolved. */
export interface IdentityPlan {
  readonly header: string
  readonly audience: string
  readonly ttlSeconds: number
}

/** `auth.oauth`, resolved: the gateway as an OAuth client of the server, one grant per principal. */
export interface OAuthClientPlan {
  readonly scope: string | undefined
  readonly clientId: string | undefined
  readonly clientSecret: Redacted.Redacted<string> | undefined
  readonly clientMetadataUrl: string | undefined
}

/** How the gateway authenticates toward one server beyond its static `token` and `headers`. */
export interface AuthPlan {
  readonly clientCredentials: TokenClientPlan | undefined
  readonly exchange: ExchangePlan | undefined
  readonly oauth: OAuthClientPlan | undefined
  /** In config order; the first entry naming a principal (then the first naming a role it holds) is its. */
  readonly perPrincipal: ReadonlyArray<PrincipalSecretsPlan>
  readonly identity: IdentityPlan | undefined
}

/** No auth form: the static `token` and `headers` only. */
export const NO_AUTH: AuthPlan = {
  clientCredentials: undefined,
  exchange: undefined,
  oauth: undefined,
  perPrincipal: [],
  identity: undefined
}

/**
 * Whether a server's credential is each principal's own (`exchange`, `oauth`, `perPrincipal`): its sessions then are
 * too.
 */
export const perPrincipalAuth = (auth: AuthPlan): boolean =>
  auth.exchange !== undefined || auth.oauth !== undefined || auth.perPrincipal.length > 0

/**
 * The servers a gateway connects without a principal (at start, for `check`): all but per-principal ones, which open
 * for each principal.
 */
export const sharedServerIds = (plan: Pick<Plan, "servers">): ReadonlyArray<string> =>
  [...plan.servers].filter(([, server]) => server.sessions !== "per-principal").map(([id]) => id)

/** The default identity header. */
export const DEFAULT_IDENTITY_HEADER = "Interlock-Identity"

/** The default lifetime of an identity token (seconds). */
export const DEFAULT_IDENTITY_TTL_SECONDS = 60

/** The session limits of `/mcp`, from `listen`. */
export interface SessionLimits {
  /** How long a session may stay idle before it is closed (ms). */
  readonly idleMs: number
  /** The most sessions open at once. */
  readonly maxSessions: number
  /** The most sessions one principal (the anonymous one included) may have open at once. */
  readonly maxPerPrincipal: number
}

/** The defaults of `listen.sessionIdleSeconds`, `listen.maxSessions` and `listen.maxSessionsPerPrincipal`. */
export const DEFAULT_SESSION_LIMITS: SessionLimits = { idleMs: 30 * 60_000, maxSessions: 1_000, maxPerPrincipal: 100 }

/** Where approvals go: auto (elicitation when the host supports it, else the console), or one of them. */
export type ApprovalRoute = "auto" | "elicitation" | "console"

/** How the gateway listens toward hosts. */
export interface ListenPlan {
  readonly host: string
  readonly port: number
  /** The gateway's own bearer token (principal "default"), if any. */
  readonly token: Redacted.Redacted<string> | undefined
  /** Bearer token -> principal, for every configured principal (and the gateway token). */
  readonly principals: ReadonlyMap<string, { readonly id: string; readonly roles: ReadonlyArray<string> | undefined }>
  readonly allowedHosts: ReadonlyArray<string>
  /** The configured origins, canonical; undefined: the gateway's own origins on the port it listens on. */
  readonly allowedOrigins: ReadonlyArray<string> | undefined
  /** Resumable event streams on `/mcp` (Last-Event-ID); off by default. */
  readonly resumable: boolean
  /** Idle expiry and caps of `/mcp` sessions. */
  readonly sessions: SessionLimits
  /** The console-only token (listen.consoleToken): its holder is an approver, and cannot call tools. */
  readonly consoleToken: Redacted.Redacted<string> | undefined
  /** The gateway's origin as clients reach it (listen.publicUrl); undefined: the address it listens on. */
  readonly publicUrl: string | undefined
  /** OAuth access tokens accepted beside the static tokens (listen.oauth), if any. */
  readonly oauth: OAuthPlan | undefined
}

/** The gateway as an OAuth resource server (listen.oauth), resolved. */
export interface OAuthPlan {
  readonly issuer: string
  /** The `aud` tokens must carry; undefined: the gateway's public MCP URL, known once it listens. */
  readonly audience: string | undefined
  /** The key set's URL; undefined: found from the issuer's metadata. */
  readonly jwksUri: string | undefined
  readonly principalClaim: string
  readonly rolesClaim: string | undefined
  readonly requiredScopes: ReadonlyArray<string>
}

/** How `ask` decisions are answered. */
export interface ApprovalsPlan {
  readonly timeoutMs: number
  /** Where asks go; `auto` becomes `console` when approvers are named (elicitation asks the caller itself). */
  readonly route: ApprovalRoute
  /** Who may approve in the console: principal names and `role:NAME` (approvals.approvers). */
  readonly approvers: ReadonlyArray<string>
  /** The secret sealing approval states (approvals.stateKey); undefined: a key generated at start. */
  readonly stateKey: Redacted.Redacted<string> | undefined
}

/** The shortest `approvals.stateKey` accepted, in characters. */
export const MIN_STATE_KEY_LENGTH = 32

/** Where audit rows go: a SQLite file, a Postgres URL (a secret), or neither (audit off). */
export interface AuditPlan {
  readonly path: string | undefined
  readonly postgres: Redacted.Redacted<string> | undefined
  readonly capture: "metadata" | "full"
}

/** Everything the gateway runs, from one config. */
export interface Plan {
  readonly servers: ReadonlyMap<string, ServerPlan>
  readonly namespace: "auto" | "always" | "never"
  readonly hooks: HooksConfig
  readonly redactions: ReadonlyArray<Redaction>
  readonly loaded: LoadedConfig
  readonly pinTools: boolean
  readonly audit: AuditPlan
  /** The Postgres database of the state replicas share (state.postgres, else audit.postgres); undefined: in memory. */
  readonly statePostgres: Redacted.Redacted<string> | undefined
  readonly approvals: ApprovalsPlan
  readonly listen: ListenPlan
  readonly telemetry: {
    readonly otlp: string | undefined
    readonly serviceName: string
    readonly exportIntervalMs: number
  }
  readonly hookTimeoutMs: number | undefined
  readonly callTimeoutMs: number | undefined
  /** The key signing identity tokens (credentials.identityKey, a PKCS #8 PEM); undefined: one generated at start. */
  readonly identityKey: Redacted.Redacted<string> | undefined
  /** Where auth.oauth grants are kept, encrypted (credentials.path and key); undefined: in memory only. */
  readonly grantVault: { readonly path: string; readonly key: Redacted.Redacted<string> } | undefined
  /** The hex SHA-256 of the config and its Cedar file (config/ConfigHash.ts), recorded on every audit row. */
  readonly configHash: string
  /**
   * The Cedar policy the config names, read once here so that the policy in force is the one its
   * hash describes; `text` is undefined when the file could not be read (the policy Layer then fails).
   */
  readonly cedar: { readonly file: string; readonly text: string | undefined } | undefined
}

/** The default HTTP address. */
export const DEFAULT_LISTEN = "127.0.0.1:7331"

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"])

/** Whether a host name or address is loopback. */
export const isLoopback = (host: string): boolean => LOOPBACK.has(host) || /^127(?:\.\d{1,3}){3}$/.test(host)

/** The names a bind address answers to: every loopback name for a loopback bind, else the address itself. */
export const bindNames = (host: string): ReadonlyArray<string> =>
  isLoopback(host) ? ["127.0.0.1", "localhost", "[::1]"] : [host]

/** An authorization server's URL: https, or http on a loopback host (for local use and tests), without credentials. */
export const authorizationUrl = (text: string, where: string): string | ConfigError => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return new ConfigError({ path: where, detail: "must be a URL, for example https://auth.example.com" })
  }
  const secure = url.protocol === "https:" || (url.protocol === "http:" && isLoopback(url.hostname))
  return secure && url.username === "" && url.password === ""
    ? text
    : new ConfigError({
      path: where,
      detail: "must be an https URL (http only on a loopback host), without credentials"
    })
}

/** Parses HOST:PORT (IPv6 in brackets); port 0 lets the OS choose. */
export const parseHostPort = (
  text: string,
  where: string
): { readonly host: string; readonly port: number } | ConfigError => {
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(text.trim())
  const port = match === null ? Number.NaN : Number(match[2])
  if (match === null || !(port >= 0 && port <= 65535)) {
    return new ConfigError({ path: where, detail: "must be HOST:PORT, for example 127.0.0.1:7331" })
  }
  return { host: match[1].startsWith("[") ? match[1].slice(1, -1) : match[1], port }
}

/** The default SQLite audit file, relative to the config's directory. */
export const DEFAULT_AUDIT_PATH = ".interlock/audit.db"
