/**
 * The `_meta` of a request toward a server: the request's own keys, and what its caller passes on
 * (`Caller.meta`). The 2026-07-28 envelope keys (client capabilities, client info, log level) go
 * only to a 2026-07-28 session, where they take the place of the hub's own, so that a server is
 * never promised more than the calling host can do; the protocol version is the session's own.
 */
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, LOG_LEVEL_META_KEY, PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/client"
import type { Caller } from "./Caller.ts"

/** The envelope keys that mean something only to a 2026-07-28 server. */
const MODERN_ONLY: ReadonlySet<string> = new Set([CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, LOG_LEVEL_META_KEY])

/** The `_meta` to send: the caller's keys that fit the session's era, then the request's own (which win). */
export const requestMeta = (
  caller: Caller | undefined,
  modern: boolean,
  own: Readonly<Record<string, unknown>> | undefined
): Readonly<Record<string, unknown>> | undefined => {
  const passed = caller?.meta
  if (passed === undefined) return own
  const meta: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(passed)) {
    if (key === PROTOCOL_VERSION_META_KEY || (!modern && MODERN_ONLY.has(key))) continue
    meta[key] = value
  }
  if (own !== undefined) Object.assign(meta, own)
  return Object.keys(meta).length === 0 ? undefined : meta
}

/** `params` with `meta` as its `_meta` (unchanged when there is none). */
export const withMeta = <P extends object>(params: P, meta: Readonly<Record<string, unknown>> | undefined): P =>
  meta === undefined ? params : { ...params, _meta: meta }
