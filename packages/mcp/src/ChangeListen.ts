/**
 * The `subscriptions/listen` stream that carries a 2026-07-28 server's list changes (tools, prompts, resources) to
 * the hub, opened in the background once the session is connected, so a server that refuses it or never
 * acknowledges it delays no request. Without it, changes reach hosts on their next listing (every listing asks the
 * server). Nothing the server sent is logged.
 */
import type { Client, McpSubscription } from "@modelcontextprotocol/client"
import { Effect } from "effect"

/** The list changes a server offers to announce, as a listen filter; undefined when it offers none. */
export const changeFilter = (capabilities: ReturnType<Client["getServerCapabilities"]>) => {
  const filter = {
    ...(capabilities?.tools?.listChanged === true ? { toolsListChanged: true } : {}),
    ...(capabilities?.prompts?.listChanged === true ? { promptsListChanged: true } : {}),
    ...(capabilities?.resources?.listChanged === true ? { resourcesListChanged: true } : {})
  }
  return Object.keys(filter).length === 0 ? undefined : filter
}

/**
 * Opens the list-change stream of a connected 2026-07-28 client (its changes then reach the
 * client's notification handlers); waits at most `timeoutMs` for the server's acknowledgement.
 * Succeeds with the stream, or with undefined when there is none to have (logged at debug).
 */
export const listenForChanges = (client: Client, timeoutMs: number): Effect.Effect<McpSubscription | undefined> => {
  const filter = changeFilter(client.getServerCapabilities())
  if (filter === undefined) return Effect.succeed(undefined)
  return Effect.tryPromise(() => client.listen(filter, { timeout: timeoutMs })).pipe(
    Effect.catch(() =>
      Effect.as(
        Effect.logDebug(
          "MCP server gave no subscriptions/listen stream for its list changes; they reach hosts on their next listing"
        ),
        undefined
      )
    )
  )
}
