/**
 * What a host's request says of the host, passed on with its call to the server (mcp's
 * `Caller.meta`): the client capabilities the gateway can carry for that host, and its client info.
 * A 2026-07-28 server then asks only for what this host can answer, instead of what the gateway's
 * own session declared; a capability the gateway does not carry for the host is never promised.
 */
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY } from "@modelcontextprotocol/server"

/** The assigns key under which the front hands the call path the `_meta` keys to pass on for the host. */
export const HOST_META_KEY = "interlock/hostMeta"

/** A server's request that the gateway can carry to a host, by the client capability it needs. */
export type Carried = "sampling" | "elicitation" | "roots"

/** What the gateway carries to a 2025 host over its session (HostSessions' askHost: no roots). */
export const ASKED: ReadonlyArray<Carried> = ["sampling", "elicitation"]

/** What the gateway carries to a 2026-07-28 host within a relayed round. */
export const RELAYED: ReadonlyArray<Carried> = ["sampling", "elicitation", "roots"]

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The `_meta` keys to pass on: the host's declared capabilities among those `carried` (each as the
 * host declared it), and its client info when known. A host that declared none promises none.
 */
export const hostMeta = (
  declared: unknown,
  client: { readonly name: string; readonly version: string } | undefined,
  carried: ReadonlyArray<Carried>
): Readonly<Record<string, unknown>> => {
  const capabilities: Record<string, unknown> = {}
  if (isRecord(declared)) {
    for (const name of carried) if (isRecord(declared[name])) capabilities[name] = declared[name]
  }
  return client === undefined
    ? { [CLIENT_CAPABILITIES_META_KEY]: capabilities }
    : { [CLIENT_CAPABILITIES_META_KEY]: capabilities, [CLIENT_INFO_META_KEY]: client }
}

/** The keys the front left for a call in its assigns, if any. */
export const hostMetaOf = (assigns: Readonly<Record<string, unknown>> | undefined): Readonly<Record<string, unknown>> | undefined => {
  const meta = assigns?.[HOST_META_KEY]
  return isRecord(meta) ? meta : undefined
}
