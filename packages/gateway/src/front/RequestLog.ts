/**
 * The log messages a 2026-07-28 request may carry back: its `_meta` log level is the threshold for
 * the server messages attributed to it, and a request without one gets none (the revision's rule,
 * which the conformance suite checks). A 2025 host sets its level with logging/setLevel instead, and
 * the forwarder filters by that (FeatureForwarder), so its request stream is left as it is.
 */
import type { LoggingLevel } from "@modelcontextprotocol/server"
import type { RequestNotify } from "../calls/HostSessions.ts"
import { belowLevel, logLevelOf } from "../calls/LogLevels.ts"
import type { Era } from "./RequestEra.ts"

/** Whether a message at `level` reaches a request that asked for `threshold` (none when it asked for nothing). */
export const logPasses = (level: unknown, threshold: LoggingLevel | undefined): boolean => {
  const at = logLevelOf(level)
  return threshold !== undefined && at !== undefined && !belowLevel(at, threshold)
}

/**
 * A request's notify that, in the modern era, drops the log messages below the request's level (all of them without
 * one).
 */
export const requestNotify = (notify: RequestNotify, era: Era, threshold: unknown): RequestNotify => {
  if (era === "legacy") return notify
  const level = logLevelOf(threshold)
  return (notification) =>
    notification.method === "notifications/message" && !logPasses(notification.params?.level, level)
      ? Promise.resolve()
      : notify(notification)
}
