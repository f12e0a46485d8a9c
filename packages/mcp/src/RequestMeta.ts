/**
 * The `_meta` of a request toward a server: the request's own keys, and what its caller passes on
 * (`Caller.meta`). The 2026-07-28 envelope keys (client capabilities, client info, log level) go
 * only to a 2026-07-28 session, where they take the place of the hub's own, so that a server is
 * never promised more than the calling host can do; the protocol version is the session's own.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY
} from "@modelcontextprotocol/client"
import type { LoggingLevel } from "@modelcontextprotocol/client"
import type { Caller } from "./Caller.ts"

/** The envelope keys that mean something only to a 2026-07-28 server. */
const MODERN_ONLY: ReadonlySet<string> = new Set([
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY
])

/**
 * The `_meta` to send: the caller's keys that fit the session's era, then the request's own (which
 * win). Toward a 2026-07-28 session, which has no logging/setLevel, `level` (the level the hub's
 * users asked of the server) is sent as the request's log level unless the caller sent its own.
 */
export const requestMeta = (
  caller: Caller | undefined,
  modern: boolean,
  own: Readonly<Record<string, unknown>> | undefined,
  level?: LoggingLevel | undefined
): Readonly<Record<string, unknown>> | undefined => {
  const passed = caller?.meta
  if (passed === undefined && (level === undefined || !modern)) return own
  const meta: Record<string, unknown> = modern && level !== undefined ? { [LOG_LEVEL_META_KEY]: level } : {}
  for (const [key, value] of Object.entries(passed ?? {})) {
    if (key === PROTOCOL_VERSION_META_KEY || (!modern && MODERN_ONLY.has(key))) continue
    meta[key] = value
  }
  if (own !== undefined) Object.assign(meta, own)
  return Object.keys(meta).length === 0 ? undefined : meta
}

/** `params` with `meta` as its `_meta` (unchanged when there is none). */
export const withMeta = <P extends object>(params: P, meta: Readonly<Record<string, unknown>> | undefined): P =>
  meta === undefined ? params : { ...params, _meta: meta }
