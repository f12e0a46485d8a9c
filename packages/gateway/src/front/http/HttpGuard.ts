/**
 * The checks every HTTP request passes before it reaches anything: Host and Origin against DNS rebinding
 * (`originAllowed`), then the bearer token (header, console cookie, or `?token=` once for the console). With no token
 * configured (loopback only), every request is anonymous. With OAuth (listen.oauth), an Authorization bearer token that
 * is no static token is left to the resource server (auth/ResourceServer.ts), which the middleware asks.
 */
import type { Principal } from "@interlock/core"
import { parseOrigin } from "../../config/Origin.ts"
import type { ResourceServerShape } from "./auth/ResourceServer.ts"

/** A request's headers, names in lower case (Node's and effect/http's both are). */
export type RequestHeaders = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

const header = (headers: RequestHeaders, name: string): string | undefined => {
  const value = headers[name]
  return typeof value === "string" ? value : undefined
}

/** The cookie the console keeps its token in. */
export const TOKEN_COOKIE = "interlock_token"

/** What a guard decides about a request. */
export type GuardResult =
  | { readonly _tag: "Pass"; readonly principal: Principal | undefined; readonly token: string | undefined }
  | { readonly _tag: "Reject"; readonly status: number; readonly message: string }
  /**
   * Host and Origin pass, and no static token matches: the OAuth resource server decides (`token`: the header's, if
   * any).
   */
  | { readonly _tag: "Verify"; readonly token: string | undefined; readonly oauth: ResourceServerShape }

/** The guard's settings. */
export interface GuardOptions {
  readonly allowedHosts: ReadonlyArray<string>
  /** Allowed origins, each as {@link parseOrigin} gives it. */
  readonly allowedOrigins: ReadonlyArray<string>
  /** Whether any token is configured; when true, a request without a known token is rejected. */
  readonly requireToken: boolean
  readonly principalFor: (token: string) => Principal | undefined
  /** The OAuth resource server, when listen.oauth is set. */
  readonly oauth?: ResourceServerShape | undefined
}

/**
 * The origins of the gateway's own pages: its bind address on its own port (all loopback names for a loopback bind).
 */
export const ownOrigins = (hosts: ReadonlyArray<string>, port: number): ReadonlyArray<string> =>
  hosts.flatMap((host) => {
    const origin = parseOrigin(`http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`)
    return origin === undefined ? [] : [origin]
  })

/**
 * Whether a request's Origin header is one of `allowed`, compared whole (scheme, host and port):
 * `http://localhost:3000` does not admit `http://localhost:4444`, so a page on another local port cannot drive the
 * gateway.
 */
export const originAllowed = (origin: string, allowed: ReadonlyArray<string>): boolean => {
  const parsed = parseOrigin(origin)
  return parsed !== undefined && allowed.includes(parsed)
}

const hostnameOf = (host: string): string => {
  if (host.startsWith("[")) {
    const end = host.indexOf("]")
    return end < 0 ? host : host.slice(0, end + 1)
  }
  const colon = host.lastIndexOf(":")
  return (colon < 0 ? host : host.slice(0, colon)).toLowerCase()
}

const cookieToken = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined
  for (const part of header.split(";")) {
    const [name, ...rest] = part.trim().split("=")
    if (name === TOKEN_COOKIE) return decodeURIComponent(rest.join("="))
  }
  return undefined
}

/** Where a request's token came from, if it has one. */
export const tokenOf = (
  headers: RequestHeaders,
  url: URL
): { readonly token: string; readonly from: "header" | "cookie" | "query" } | undefined => {
  const auth = header(headers, "authorization")
  if (auth !== undefined && /^bearer\s+/i.test(auth)) {
    return { token: auth.replace(/^bearer\s+/i, "").trim(), from: "header" }
  }
  const cookie = cookieToken(header(headers, "cookie"))
  if (cookie !== undefined) return { token: cookie, from: "cookie" }
  // A token in the URL is taken only for the console page (then kept in a cookie), never for /mcp.
  const query = url.pathname === "/" ? url.searchParams.get("token") : null
  return query === null ? undefined : { token: query, from: "query" }
}

/** Whether a request's Host header names one of `allowedHosts` (any port). */
export const hostAllowed = (headers: RequestHeaders, allowedHosts: ReadonlyArray<string>): boolean => {
  const host = header(headers, "host")
  return host !== undefined && allowedHosts.includes(hostnameOf(host))
}

/** Checks one request. */
export const guard = (headers: RequestHeaders, url: URL, options: GuardOptions): GuardResult => {
  if (!hostAllowed(headers, options.allowedHosts)) {
    return { _tag: "Reject", status: 403, message: "Forbidden: Host header not allowed" }
  }
  const origin = header(headers, "origin")
  if (origin !== undefined && !originAllowed(origin, options.allowedOrigins)) {
    return { _tag: "Reject", status: 403, message: "Forbidden: Origin not allowed" }
  }
  if (!options.requireToken) return { _tag: "Pass", principal: undefined, token: undefined }
  const found = tokenOf(headers, url)
  const principal = found === undefined ? undefined : options.principalFor(found.token)
  // An access token is taken from the Authorization header only (never a cookie or the URL).
  if (principal === undefined && options.oauth !== undefined) {
    return { _tag: "Verify", token: found?.from === "header" ? found.token : undefined, oauth: options.oauth }
  }
  if (principal === undefined) {
    return { _tag: "Reject", status: 401, message: "Unauthorized: a valid bearer token is required" }
  }
  return { _tag: "Pass", principal, token: found?.token }
}
