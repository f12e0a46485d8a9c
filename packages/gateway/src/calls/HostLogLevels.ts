/**
 * The logging levels the hosts asked for (logging/setLevel), and the one the servers get: the most
 * verbose any host asked for, sent to every server when it changes. A host that leaves is forgotten,
 * but the servers keep the level they were sent until a host asks again.
 */
import type { TransportFailure } from "@interlock/core"
import type { HubFeaturesShape } from "@interlock/mcp"
import type { LoggingLevel } from "@modelcontextprotocol/server"
import { Effect } from "effect"
import type { HostSession } from "./HostSessions.ts"
import { mostVerbose } from "./LogLevels.ts"

/** The logging levels of one gateway's hosts. */
export interface HostLogLevelsShape {
  /** `host` asks for `level`: the servers get the most verbose level asked for, if it changed. */
  readonly set: (host: HostSession, level: LoggingLevel) => Effect.Effect<void, TransportFailure>
  /** The level `host` asked for, if any. */
  readonly of: (host: HostSession) => LoggingLevel | undefined
  /** Forgets a host that disconnected. */
  readonly forget: (host: HostSession) => void
}

/** The hosts' levels, applied to `serverIds` through the hub's (redacting) features. */
export const makeHostLogLevels = (
  serverIds: ReadonlyArray<string>,
  features: Pick<HubFeaturesShape, "setLoggingLevel">
): HostLogLevelsShape => {
  const levels = new Map<HostSession, LoggingLevel>()
  let applied: LoggingLevel | undefined
  const apply = () => {
    const level = mostVerbose(levels.values())
    if (level === undefined || level === applied) return Effect.void
    applied = level
    return Effect.forEach(serverIds, (id) => features.setLoggingLevel(id, level), {
      concurrency: "unbounded",
      discard: true
    })
  }
  return {
    set: (host, level) =>
      Effect.suspend(() => {
        levels.set(host, level)
        return apply()
      }),
    of: (host) => levels.get(host),
    forget: (host) => void levels.delete(host)
  }
}
