/**
 * The bridge's own deadline. Claude Code kills a command hook at its `timeout` (seconds, in
 * settings.json) and then lets the tool run unless the hook sets `"onFailure": "block"` (and the
 * CLI honours it), so the bridge answers deny itself before that: at the hook's timeout less a
 * margin for the process's start and its answer on the wire. Pure.
 */
import { Duration } from "effect"

/** The timeout the bridge assumes when its `--timeout` is not given: Claude Code's oldest default, 60 s. */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60

/** The margin the bridge keeps below the hook's timeout: a quarter of it, at least 1 s and at most 5 s. */
export const marginMillis = (timeoutSeconds: number): number =>
  Math.min(5_000, Math.max(1_000, (timeoutSeconds * 1_000) / 4))

/**
 * When the bridge must have answered, counted from its process's start, for a hook whose
 * `timeout` is `timeoutSeconds`: the timeout less its margin (zero when the timeout is too short to
 * leave any time, which answers closed at once).
 */
export const deadlineMillis = (timeoutSeconds: number = DEFAULT_HOOK_TIMEOUT_SECONDS): number =>
  Math.max(0, Math.round(timeoutSeconds * 1_000 - marginMillis(timeoutSeconds)))

/**
 * Reads the `--timeout` value (seconds, as in settings.json): a positive finite number, or an
 * error text naming what is wrong; absent gives the default.
 */
export const parseTimeout = (text: string | undefined): number | string => {
  if (text === undefined) return DEFAULT_HOOK_TIMEOUT_SECONDS
  const value = /^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : Number.NaN
  return Number.isFinite(value) && value > 0 ? value : "--timeout must be a positive number of seconds"
}

/** What is left of the deadline once `elapsedMillis` of the process's life have passed. */
export const remaining = (timeoutSeconds: number, elapsedMillis: number): Duration.Duration =>
  Duration.millis(Math.max(0, deadlineMillis(timeoutSeconds) - elapsedMillis))
