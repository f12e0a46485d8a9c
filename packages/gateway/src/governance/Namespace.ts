/**
 * Tool names toward the host. With several servers each tool is exposed as `<server>__<tool>`;
 * with one server and "auto" (the default) names pass through unchanged; "always" and "never"
 * force the choice. Server names never contain "__", so the first "__" splits a name.
 */

/** Maps names between the host's view and the servers'. */
export interface Namespace {
  readonly prefixed: boolean
  /** The servers, in config order. */
  readonly serverIds: ReadonlyArray<string>
  /** Records that a server listed a name (the first server wins); "never" routes by it. */
  readonly own: (serverId: string, name: string) => void
  /** The name the host sees for a server's tool. */
  readonly expose: (serverId: string, name: string) => string
  /** The server and tool a host-side name refers to, or undefined for a name no server has. */
  readonly resolve: (name: string) => { readonly serverId: string; readonly name: string } | undefined
}

/** The separator between server and tool. */
export const SEPARATOR = "__"

/**
 * A namespace over these servers in this mode. "never" with several servers routes to the first that listed the name
 * (see `own`).
 */
export const makeNamespace = (serverIds: ReadonlyArray<string>, mode: "auto" | "always" | "never"): Namespace => {
  const prefixed = mode === "always" || (mode === "auto" && serverIds.length > 1)
  const known = new Set(serverIds)
  if (prefixed) {
    return {
      prefixed,
      serverIds,
      own: () => undefined,
      expose: (serverId, name) => `${serverId}${SEPARATOR}${name}`,
      resolve: (name) => {
        const at = name.indexOf(SEPARATOR)
        if (at <= 0) return undefined
        const serverId = name.slice(0, at)
        const tool = name.slice(at + SEPARATOR.length)
        return known.has(serverId) && tool.length > 0 ? { serverId, name: tool } : undefined
      }
    }
  }
  const owners = new Map<string, string>()
  return {
    prefixed,
    serverIds,
    own: (serverId, name) => {
      if (!owners.has(name)) owners.set(name, serverId)
    },
    expose: (_serverId, name) => name,
    resolve: (name) => {
      const serverId = serverIds.length === 1 ? serverIds[0] : owners.get(name)
      return serverId === undefined || name.length === 0 ? undefined : { serverId, name }
    }
  }
}
