/**
 * Secrets in the config: `env:NAME` is read from the environment when the gateway starts and
 * held as a `Redacted`, so no log, error or trace can print it.
 */
import { ConfigError } from "@interlock/core"
import { Redacted } from "effect"

const ENV_REF = /^env:([A-Za-z_][A-Za-z0-9_]*)$/

/** Resolves one secret. A missing or empty environment variable is a ConfigError naming `path`. */
export const readSecret = (
  value: string,
  path: string,
  env: Readonly<Record<string, string | undefined>> = process.env
): Redacted.Redacted<string> | ConfigError => {
  if (value.startsWith("env:")) {
    const match = ENV_REF.exec(value)
    if (match === null) {
      return new ConfigError({ path, detail: "env: must be followed by a variable name (letters, digits, _)" })
    }
    const found = env[match[1]]
    if (found === undefined || found.length === 0) {
      return new ConfigError({ path, detail: `environment variable ${match[1]} is not set` })
    }
    return Redacted.make(found, { label: match[1] })
  }
  return Redacted.make(value)
}
