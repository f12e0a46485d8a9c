/**
 * The order of a host's tools/list: by the name the host sees (the namespaced name), then by server
 * id, then by definition fingerprint, each compared by UTF-16 code units (no locale). The listing
 * is then the same on every request while the set of tools is unchanged, whatever order the
 * servers answered in and however a server orders its own list, as the revision asks of servers
 * (a deterministic order keeps hosts' caches and model prompt caches valid).
 */
import type { Tool } from "@interlock/core"

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** `tools` in the listing order; `exposed` gives the name the host sees for a server's tool. */
export const orderTools = <T extends Pick<Tool, "serverId" | "name" | "fingerprint">>(
  tools: ReadonlyArray<T>,
  exposed: (serverId: string, name: string) => string
): ReadonlyArray<T> =>
  tools
    .map((tool) => ({ tool, key: exposed(tool.serverId, tool.name) }))
    .sort((a, b) => compare(a.key, b.key) || compare(a.tool.serverId, b.tool.serverId) || compare(a.tool.fingerprint, b.tool.fingerprint))
    .map(({ tool }) => tool)
