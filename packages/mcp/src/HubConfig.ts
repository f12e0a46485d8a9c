/**
 * The hub's configuration: which servers, how to reach each one (stdio, Streamable HTTP or an
 * in-process SDK server), which of their tools are exposed, and how connections behave.
 * `compileHub` checks all of it at Layer build time and answers with a ConfigError naming the place.
 */
import {
  canonicalName,
  ConfigError,
  type Interlock,
  isDeadline,
  type Matcher,
  parseMatcher,
  toMillis
} from "@interlock/core"
import type { AuthProvider, FetchLike, OAuthClientProvider } from "@modelcontextprotocol/client"
import type { McpServer } from "@modelcontextprotocol/server"
import { type Duration, Redacted, Result, Schedule } from "effect"
import type { ServerAuth } from "./Credential.ts"

/** A server started as a child process that speaks MCP over its stdin and stdout. */
export interface StdioOptions {
  readonly command: string
  readonly args?: ReadonlyArray<string>
  /** Extra environment variables, added to the SDK's safe default environment (PATH, HOME, ...). */
  readonly env?: Readonly<Record<string, string>>
  readonly cwd?: string
  /** How many bytes of the child's stderr to keep for error messages; default 8 KiB. */
  readonly stderrBytes?: number
  /**
   * Where the child's stderr goes instead of error messages: when set, the kept tail is handed here
   * once the process has ended, and no error quotes it (it may hold secrets; a gateway logs it redacted).
   * `stopped`: the hub ended the process (a close or shutdown), rather than the process ending on its own.
   */
  readonly onStderr?: (tail: string, ended: { readonly stopped: boolean }) => void
}

/** A server reached over Streamable HTTP. */
export interface HttpOptions {
  readonly url: string | URL
  /** Headers sent on every request. */
  readonly headers?: Readonly<Record<string, string>>
  /** A bearer token, sent as `Authorization: Bearer ...`; typed as Redacted so no sink prints it. */
  readonly bearer?: Redacted.Redacted<string>
  /** An SDK auth provider (OAuth flows); exclusive with `bearer`. */
  readonly authProvider?: AuthProvider | OAuthClientProvider
  /** A fetch implementation (for example one that adds OAuth middleware). */
  readonly fetch?: FetchLike
}

/** An SDK `McpServer` in the same process, paired over the SDK's InMemoryTransport. */
export interface MemoryOptions {
  /** The server, or a factory that builds a fresh one for every connection (reconnects included). */
  readonly server: McpServer | (() => McpServer)
}

/** Protocol negotiation: `auto` probes for the 2026-07-28 revision and falls back to legacy. */
export type Negotiation = "auto" | "legacy" | { readonly pin: string }

/** One server of the hub: exactly one of `stdio`, `http` or `memory`, plus its own settings. */
export interface ServerConfig {
  readonly stdio?: StdioOptions
  readonly http?: HttpOptions
  readonly memory?: MemoryOptions
  /** Which of this server's tools are exposed: `allow` (if given) must match, `deny` must not. Loose names. */
  readonly tools?: Interlock.ToolsFilter
  /** `lazy` (default) connects on first use; `eager` connects when the hub is built. */
  readonly connect?: "lazy" | "eager"
  /** Default "auto". */
  readonly protocol?: Negotiation
  /** Backoff between connection attempts; default the hub's. */
  readonly reconnect?: Schedule.Schedule<unknown, unknown>
  /** Deadline of one connection attempt (spawn or request, and the handshake); default the hub's. */
  readonly connectTimeout?: Duration.Input
  /** Deadline of listings, resource reads and prompt gets; default the hub's. Tool calls use core's callTimeout. */
  readonly requestTimeout?: Duration.Input
  /**
   * Opt-in: each progress notification of a call restarts its deadline (core's call timeout), up
   * to `maxCallDuration` in all (default 10 minutes).
   */
  readonly progressExtendsDeadline?: boolean
  readonly maxCallDuration?: Duration.Input
  /**
   * For a 2025-era server: `shared` (default) serves every caller on one session; `per-host` opens
   * one session per caller key (see Caller), so the server's own requests go to exactly that
   * caller's host. A 2026-07-28 server has no sessions, and is always shared. `per-principal`, in
   * either era, gives each principal of a request's Credential sessions (for stdio, a process) of
   * its own, and sends no request that names none.
   */
  readonly sessions?: "shared" | "per-host" | "per-principal"
  /** The most per-host or per-principal sessions open at once; a caller beyond it is refused. Default 16. */
  readonly maxSessions?: number
  /** How the server's sessions are authenticated (Credential.ts); HTTP headers and a principal's environment. */
  readonly auth?: ServerAuth
}

/** Options of `McpHub.layer`. */
export interface HubOptions {
  readonly servers: Readonly<Record<string, ServerConfig>>
  /**
   * The client's name and version sent to servers; default `interlock` and the release number (HubConfig's default).
   */
  readonly clientInfo?: { readonly name: string; readonly version: string }
  /** Backoff between connection attempts; default 100 ms doubling, at most 3 retries. */
  readonly reconnect?: Schedule.Schedule<unknown, unknown>
  /** Deadline of one connection attempt; default 30 seconds. */
  readonly connectTimeout?: Duration.Input
  /** Deadline of listings, resource reads and prompt gets; default 60 seconds. */
  readonly requestTimeout?: Duration.Input
}

/** How a compiled server is reached. */
export type Endpoint =
  | { readonly _tag: "stdio"; readonly options: StdioOptions; readonly stderrBytes: number }
  | { readonly _tag: "http"; readonly url: URL; readonly options: HttpOptions }
  | { readonly _tag: "memory"; readonly options: MemoryOptions }

/** A server's configuration after checking. */
export interface CompiledServer {
  readonly id: string
  readonly endpoint: Endpoint
  readonly exposed: (name: string) => boolean
  readonly eager: boolean
  readonly negotiation: Negotiation
  readonly reconnect: Schedule.Schedule<unknown, unknown>
  readonly connectTimeoutMs: number
  readonly requestTimeoutMs: number
  readonly progress: { readonly extendsDeadline: boolean; readonly maxCallMs: number }
  readonly sessions: "shared" | "per-host" | "per-principal"
  readonly maxSessions: number
  readonly auth: ServerAuth | undefined
}

/** The whole hub after checking. */
export interface CompiledHub {
  readonly servers: ReadonlyMap<string, CompiledServer>
  readonly clientInfo: { readonly name: string; readonly version: string }
}

/** The default cap on a server's per-host sessions. */
export const DEFAULT_MAX_SESSIONS = 16

/** The default backoff: 100 ms, doubling, at most three retries after the first attempt. */
export const defaultReconnect: Schedule.Schedule<unknown, unknown> = Schedule.max([
  Schedule.exponential("100 millis"),
  Schedule.recurs(3)
])

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const isStringRecord = (u: unknown): boolean => isRecord(u) && Object.values(u).every((v) => typeof v === "string")

const millis = (path: string, input: Duration.Input | undefined, fallback: number): number | ConfigError => {
  if (input === undefined) return fallback
  const ms = toMillis(input)
  return isDeadline(ms) ? ms : new ConfigError({ path, detail: "must be a positive, finite duration" })
}

const compileMatchers = (path: string, list: unknown): Array<Matcher> | ConfigError | undefined => {
  if (list === undefined) return undefined
  if (!Array.isArray(list)) return new ConfigError({ path, detail: "must be an array of matchers" })
  const out: Array<Matcher> = []
  for (let i = 0; i < list.length; i++) {
    const matcher = parseMatcher(list[i])
    if (Result.isFailure(matcher)) return new ConfigError({ path: `${path}[${i}]`, detail: matcher.failure })
    out.push(matcher.success)
  }
  return out
}

/** Compiles a per-server tools filter; matchers see the server's own id, so "srv/write_*" and "write_*" both work. */
export const compileFilter = (
  path: string,
  serverId: string,
  filter: unknown
): ((name: string) => boolean) | ConfigError => {
  if (filter === undefined) return () => true
  if (!isRecord(filter)) return new ConfigError({ path, detail: "must be an object with `allow` and/or `deny`" })
  const unknownKeys = Object.keys(filter).filter((key) => key !== "allow" && key !== "deny")
  if (unknownKeys.length > 0) return new ConfigError({ path, detail: `unknown keys: ${unknownKeys.join(", ")}` })
  const allow = compileMatchers(`${path}.allow`, filter.allow)
  if (allow instanceof ConfigError) return allow
  const deny = compileMatchers(`${path}.deny`, filter.deny)
  if (deny instanceof ConfigError) return deny
  return (name) =>
    (allow === undefined || allow.some((m) => m.test(serverId, name))) &&
    !(deny ?? []).some((m) => m.restrictTest(serverId, name))
}

/**
 * The options `T` of a record whose every field `T` reads was checked one by one just before (the
 * rest pass through untouched): the one place where those checks stand for the type.
 */
const checked = <T>(record: Readonly<Record<string, unknown>>): T => record as unknown as T

const compileStdio = (path: string, stdio: unknown): Endpoint | ConfigError => {
  if (!isRecord(stdio)) return new ConfigError({ path, detail: "must be an object with a `command`" })
  if (typeof stdio.command !== "string" || stdio.command.trim().length === 0) {
    return new ConfigError({ path: `${path}.command`, detail: "must be a non-empty string" })
  }
  if (stdio.args !== undefined && !(Array.isArray(stdio.args) && stdio.args.every((a) => typeof a === "string"))) {
    return new ConfigError({ path: `${path}.args`, detail: "must be an array of strings" })
  }
  if (stdio.env !== undefined && !isStringRecord(stdio.env)) {
    return new ConfigError({ path: `${path}.env`, detail: "must be an object of string values" })
  }
  if (stdio.cwd !== undefined && (typeof stdio.cwd !== "string" || stdio.cwd.length === 0)) {
    return new ConfigError({ path: `${path}.cwd`, detail: "must be a non-empty string" })
  }
  if (stdio.onStderr !== undefined && typeof stdio.onStderr !== "function") {
    return new ConfigError({ path: `${path}.onStderr`, detail: "must be a function" })
  }
  const bytes = stdio.stderrBytes ?? 8192
  if (typeof bytes !== "number" || !Number.isInteger(bytes) || bytes < 0 || bytes > 1_048_576) {
    return new ConfigError({ path: `${path}.stderrBytes`, detail: "must be an integer from 0 to 1048576" })
  }
  // Every field StdioOptions reads was checked above; the rest are passed through untouched.
  return { _tag: "stdio", options: checked<StdioOptions>(stdio), stderrBytes: bytes }
}

const compileHttp = (path: string, http: unknown): Endpoint | ConfigError => {
  if (!isRecord(http)) return new ConfigError({ path, detail: "must be an object with a `url`" })
  let url: URL
  try {
    if (typeof http.url !== "string" && !(http.url instanceof URL)) throw new Error()
    url = new URL(http.url)
  } catch {
    return new ConfigError({ path: `${path}.url`, detail: "must be an absolute http or https URL" })
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return new ConfigError({ path: `${path}.url`, detail: `must use http or https, not ${url.protocol}` })
  }
  if (http.headers !== undefined && !isStringRecord(http.headers)) {
    return new ConfigError({ path: `${path}.headers`, detail: "must be an object of string values" })
  }
  if (http.bearer !== undefined && !Redacted.isRedacted(http.bearer)) {
    return new ConfigError({ path: `${path}.bearer`, detail: "must be a Redacted string (Redacted.make(token))" })
  }
  if (http.bearer !== undefined && http.authProvider !== undefined) {
    return new ConfigError({ path: `${path}.bearer`, detail: "give either `bearer` or `authProvider`, not both" })
  }
  // Every field HttpOptions reads was checked above (the url parsed); the rest are passed through untouched.
  return { _tag: "http", url, options: checked<HttpOptions>(http) }
}

const compileMemory = (path: string, memory: unknown): Endpoint | ConfigError => {
  if (!isRecord(memory) || (typeof memory.server !== "function" && !isRecord(memory.server))) {
    return new ConfigError({
      path,
      detail: "must be an object with `server`: an McpServer or a function that builds one"
    })
  }
  // The one field MemoryOptions has was checked above.
  return { _tag: "memory", options: checked<MemoryOptions>(memory) }
}

const compileNegotiation = (path: string, input: unknown): Negotiation | ConfigError => {
  if (input === undefined) return "auto"
  if (input === "auto" || input === "legacy") return input
  if (isRecord(input) && typeof input.pin === "string" && /^\d{4}-\d{2}-\d{2}$/.test(input.pin)) {
    return { pin: input.pin }
  }
  return new ConfigError({ path, detail: `must be "auto", "legacy" or { pin: "YYYY-MM-DD" }` })
}

const compileAuth = (
  path: string,
  auth: unknown,
  kind: "stdio" | "http" | "memory",
  sessions: CompiledServer["sessions"]
): ServerAuth | undefined | ConfigError => {
  if (auth === undefined) return undefined
  if (!isRecord(auth)) return new ConfigError({ path, detail: "must be an object with `headers` and/or `env`" })
  const unknownKeys = Object.keys(auth).filter((key) => key !== "headers" && key !== "env")
  if (unknownKeys.length > 0) return new ConfigError({ path, detail: `unknown keys: ${unknownKeys.join(", ")}` })
  if (auth.headers !== undefined && (typeof auth.headers !== "function" || kind !== "http")) {
    return new ConfigError({ path: `${path}.headers`, detail: "must be a function, on an http server" })
  }
  if (auth.env !== undefined && (typeof auth.env !== "function" || kind !== "stdio" || sessions !== "per-principal")) {
    return new ConfigError({
      path: `${path}.env`,
      detail: "must be a function, on a stdio server with per-principal sessions"
    })
  }
  // Both fields ServerAuth has were checked above.
  return checked<ServerAuth>(auth)
}

const SERVER_KEYS = new Set([
  "stdio",
  "http",
  "memory",
  "tools",
  "connect",
  "protocol",
  "reconnect",
  "connectTimeout",
  "requestTimeout",
  "progressExtendsDeadline",
  "maxCallDuration",
  "sessions",
  "maxSessions",
  "auth"
])

const compileServer = (
  id: string,
  config: unknown,
  hub: HubOptions,
  defaults: { readonly connectMs: number; readonly requestMs: number }
): CompiledServer | ConfigError => {
  const path = `servers.${id}`
  if (!isRecord(config)) return new ConfigError({ path, detail: "must be an object" })
  const unknownKeys = Object.keys(config).filter((key) => !SERVER_KEYS.has(key))
  if (unknownKeys.length > 0) return new ConfigError({ path, detail: `unknown keys: ${unknownKeys.join(", ")}` })
  const kinds = (["stdio", "http", "memory"] as const).filter((kind) => config[kind] !== undefined)
  if (kinds.length !== 1) {
    return new ConfigError({
      path,
      detail: `needs exactly one of stdio, http or memory, got ${kinds.length === 0 ? "none" : kinds.join(" and ")}`
    })
  }
  const kind = kinds[0]
  const endpoint = kind === "stdio"
    ? compileStdio(`${path}.stdio`, config.stdio)
    : kind === "http"
    ? compileHttp(`${path}.http`, config.http)
    : compileMemory(`${path}.memory`, config.memory)
  if (endpoint instanceof ConfigError) return endpoint
  const exposed = compileFilter(`${path}.tools`, id, config.tools)
  if (exposed instanceof ConfigError) return exposed
  if (config.connect !== undefined && config.connect !== "lazy" && config.connect !== "eager") {
    return new ConfigError({ path: `${path}.connect`, detail: `must be "lazy" or "eager"` })
  }
  const negotiation = compileNegotiation(`${path}.protocol`, config.protocol)
  if (negotiation instanceof ConfigError) return negotiation
  if (config.reconnect !== undefined && !Schedule.isSchedule(config.reconnect)) {
    return new ConfigError({ path: `${path}.reconnect`, detail: "must be a Schedule" })
  }
  const connectTimeoutMs = millis(
    `${path}.connectTimeout`,
    config.connectTimeout as Duration.Input | undefined,
    defaults.connectMs
  )
  if (connectTimeoutMs instanceof ConfigError) return connectTimeoutMs
  const requestTimeoutMs = millis(
    `${path}.requestTimeout`,
    config.requestTimeout as Duration.Input | undefined,
    defaults.requestMs
  )
  if (requestTimeoutMs instanceof ConfigError) return requestTimeoutMs
  if (config.progressExtendsDeadline !== undefined && typeof config.progressExtendsDeadline !== "boolean") {
    return new ConfigError({ path: `${path}.progressExtendsDeadline`, detail: "must be a boolean" })
  }
  const maxCallMs = millis(`${path}.maxCallDuration`, config.maxCallDuration as Duration.Input | undefined, 600_000)
  if (maxCallMs instanceof ConfigError) return maxCallMs
  const sessions = config.sessions ?? "shared"
  if (sessions !== "shared" && sessions !== "per-host" && sessions !== "per-principal") {
    return new ConfigError({ path: `${path}.sessions`, detail: `must be "shared", "per-host" or "per-principal"` })
  }
  if (sessions === "per-principal" && config.connect === "eager") {
    return new ConfigError({
      path: `${path}.connect`,
      detail: "cannot be \"eager\" with per-principal sessions: a session opens for its principal's first request"
    })
  }
  const auth = compileAuth(`${path}.auth`, config.auth, kind, sessions)
  if (auth instanceof ConfigError) return auth
  const maxSessions = config.maxSessions ?? DEFAULT_MAX_SESSIONS
  if (typeof maxSessions !== "number" || !Number.isInteger(maxSessions) || maxSessions < 1 || maxSessions > 1024) {
    return new ConfigError({ path: `${path}.maxSessions`, detail: "must be an integer from 1 to 1024" })
  }
  return {
    id,
    endpoint,
    exposed,
    eager: config.connect === "eager",
    negotiation,
    reconnect: (config.reconnect as Schedule.Schedule<unknown, unknown> | undefined) ?? hub.reconnect ??
      defaultReconnect,
    connectTimeoutMs,
    requestTimeoutMs,
    progress: { extendsDeadline: config.progressExtendsDeadline === true, maxCallMs },
    sessions,
    maxSessions,
    auth
  }
}

/** Checks a hub configuration. Server ids are non-empty, contain no "/", and differ under loose comparison. */
export const compileHub = (options: HubOptions): CompiledHub | ConfigError => {
  if (!isRecord(options) || !isRecord(options.servers)) {
    return new ConfigError({ path: "servers", detail: "must be an object keyed by server id" })
  }
  if (options.reconnect !== undefined && !Schedule.isSchedule(options.reconnect)) {
    return new ConfigError({ path: "reconnect", detail: "must be a Schedule" })
  }
  const connectMs = millis("connectTimeout", options.connectTimeout, 30_000)
  if (connectMs instanceof ConfigError) return connectMs
  const requestMs = millis("requestTimeout", options.requestTimeout, 60_000)
  if (requestMs instanceof ConfigError) return requestMs
  const info = options.clientInfo ?? { name: "interlock", version: "0.1.0" }
  if (!isRecord(info) || typeof info.name !== "string" || info.name.length === 0 || typeof info.version !== "string") {
    return new ConfigError({ path: "clientInfo", detail: "must be { name, version } with a non-empty name" })
  }
  const servers = new Map<string, CompiledServer>()
  const seen = new Map<string, string>()
  for (const [id, config] of Object.entries(options.servers)) {
    if (id.trim().length === 0 || id.includes("/") || id.trim() !== id) {
      return new ConfigError({
        path: `servers.${JSON.stringify(id)}`,
        detail: "a server id must be non-empty, without surrounding spaces, and contain no \"/\""
      })
    }
    const loose = canonicalName(id)
    const clash = seen.get(loose)
    if (clash !== undefined) {
      return new ConfigError({
        path: `servers.${id}`,
        detail: `the id is the same as "${clash}" under loose name comparison`
      })
    }
    seen.set(loose, id)
    const compiled = compileServer(id, config, options, { connectMs, requestMs })
    if (compiled instanceof ConfigError) return compiled
    servers.set(id, compiled)
  }
  return { servers, clientInfo: { name: info.name, version: info.version } }
}
