/**
 * Secrets in the config: `env:NAME` is read from the environment when the gateway starts (and,
 * where a secret may be a file, `file:PATH` from that file) and held as a `Redacted`, so no log,
 * error or trace can print it.
 */
import { ConfigError } from "@interlock/core"
import { Redacted } from "effect"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"

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

/**
 * Resolves a secret that may also be `file:PATH` (relative to `baseDir`): the file's text, one
 * trailing newline dropped. An unreadable or empty file is a ConfigError naming `path` and the file.
 */
export const readSecretOrFile = (
  value: string,
  path: string,
  env: Readonly<Record<string, string | undefined>>,
  baseDir: string
): Redacted.Redacted<string> | ConfigError => {
  if (!value.startsWith("file:")) return readSecret(value, path, env)
  const file = value.slice("file:".length)
  if (file.length === 0) return new ConfigError({ path, detail: "file: must be followed by a path" })
  let text: string
  try {
    text = readFileSync(resolve(baseDir, file), "utf8").replace(/\r?\n$/, "")
  } catch (error) {
    const code = (error as { code?: unknown }).code
    return new ConfigError({ path, detail: `cannot read ${file}${typeof code === "string" ? ` (${code})` : ""}` })
  }
  if (text.length === 0) return new ConfigError({ path, detail: `${file} is empty` })
  return Redacted.make(text, { label: `file:${file}` })
}
