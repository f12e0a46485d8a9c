/**
 * The order of a host's tools/list: the servers in config order, each server's tools in the order it listed them. The
 * listing is then the same on every request while the servers' lists are unchanged, whatever order they answered in, as
 * the revision asks of servers (a deterministic order keeps hosts' and model prompt caches valid); a server's own
 * order, which hosts and models may read as its preference, is kept.
 */
import type { Tool } from "@interlock/core"

/**
 * `tools` in the listing order: by the position of their server in `serverOrder`, stably (a server's own order kept).
 */
export const orderTools = <T extends Pick<Tool, "serverId">>(
  tools: ReadonlyArray<T>,
  serverOrder: ReadonlyArray<string>
): ReadonlyArray<T> => {
  const rank = new Map(serverOrder.map((serverId, at) => [serverId, at]))
  const of = (tool: T) => rank.get(tool.serverId) ?? serverOrder.length
  return tools.map((tool, at) => ({ tool, at })).sort((a, b) => of(a.tool) - of(b.tool) || a.at - b.at).map((
    { tool }
  ) => tool)
}
