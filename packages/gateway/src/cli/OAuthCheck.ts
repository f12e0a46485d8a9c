/**
 * `interlock check`'s look at each `auth.oauth` server: whether the discovery a principal's connection starts with
 * works (the server's RFC 9728 metadata, then its authorization server's metadata), and which authorization server
 * it names. A failure is reported, not fatal: the config is still valid.
 */
import { discoverOAuthServerInfo } from "@modelcontextprotocol/client"
import { Console, Effect } from "effect"
import type { Plan } from "../config/Plan.ts"
import { quietFetch } from "../credentials/OAuthConnect.ts"

/** The line of one server: its authorization server, or why discovery failed (the error's kind, never its text). */
const discovered = (serverId: string, url: string) =>
  Effect.promise(() =>
    discoverOAuthServerInfo(url, { fetchFn: quietFetch }).then(
      (info) =>
        info.authorizationServerMetadata === undefined
          ? `  ${serverId}  discovery failed (no authorization server metadata at ${info.authorizationServerUrl}): ` +
            "principals cannot connect it"
          : `  ${serverId}  authorization server ${info.authorizationServerUrl}` +
            (info.resourceMetadata === undefined ? " (the server publishes no RFC 9728 metadata: assumed)" : ""),
      (error: unknown) =>
        `  ${serverId}  discovery failed (${error instanceof Error ? error.name : "no metadata"}): ` +
        "principals cannot connect it"
    )
  )

/** Prints the discovery of the plan's `auth.oauth` servers, when it has any. */
export const checkOAuthDiscovery = (plan: Plan) =>
  Effect.gen(function*() {
    const servers = [...plan.servers].flatMap(([id, server]) =>
      server._tag === "http" && server.auth.oauth !== undefined ? [[id, server.url] as const] : []
    )
    if (servers.length === 0) return
    yield* Console.log("OAuth discovery:")
    for (const [id, url] of servers) yield* Console.log(yield* discovered(id, url))
  })
