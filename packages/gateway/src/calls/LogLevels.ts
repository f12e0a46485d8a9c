/**
 * MCP's log levels and their order, for every place the gateway compares them: the level a host
 * asked for (logging/setLevel, or a 2026-07-28 request's `_meta` log level) against a server's
 * message, and the most verbose level several hosts asked of one server.
 */
import type { LoggingLevel } from "@modelcontextprotocol/server"

/** MCP's log levels, most verbose first. */
export const LOG_LEVELS: ReadonlyArray<LoggingLevel> = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency"
]

/** `value` when it is one of MCP's log levels. */
export const logLevelOf = (value: unknown): LoggingLevel | undefined =>
  typeof value === "string" ? LOG_LEVELS.find((level) => level === value) : undefined

/** The most verbose of `levels`, if any. */
export const mostVerbose = (levels: Iterable<LoggingLevel>): LoggingLevel | undefined => {
  let best: number | undefined
  for (const level of levels) {
    const at = LOG_LEVELS.indexOf(level)
    if (best === undefined || at < best) best = at
  }
  return best === undefined ? undefined : LOG_LEVELS[best]
}

/** Whether a message at `level` is below `threshold` (never, when there is no threshold). */
export const belowLevel = (level: LoggingLevel, threshold: LoggingLevel | undefined): boolean =>
  threshold !== undefined && LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(threshold)
