/**
 * The hash of a config, as every audit row records it: SHA-256 (hex) of the canonical JSON of the
 * decoded config object, so formatting, comments and key order do not change it, together with the
 * text of the Cedar policy file the config names, which decides too. For a `.ts` config with code
 * predicates only the JSON part is hashed (functions have no canonical text).
 */
import { Canonical, JsonText } from "@interlock/core"
import type { GatewayConfig } from "./Config.ts"

/** How many hex characters of the hash the console and `interlock audit` show as the config's version. */
export const VERSION_LENGTH = 12

/** The config's hash and its short form. */
export interface ConfigVersion {
  /** The first {@link VERSION_LENGTH} hex characters of `hash`. */
  readonly version: string
  /** The full hex SHA-256. */
  readonly hash: string
}

/**
 * The hash of a decoded config and the text of its Cedar file (undefined without one, or when it
 * could not be read: the policy then fails to load on its own). Values JSON drops (undefined,
 * functions) are dropped first.
 */
export const configHash = (
  config: GatewayConfig | Readonly<Record<string, unknown>>,
  cedarText: string | undefined
): string => {
  const json: unknown = JsonText.parse(JSON.stringify(config))
  const text = Canonical.canonicalJson({ config: json, cedar: cedarText ?? null })
  // JSON.parse's output is always JSON, so canonicalJson answers text.
  return Canonical.sha256Hex(typeof text === "string" ? text : JSON.stringify(json))
}

/** A hash with its short form. */
export const versionOf = (hash: string): ConfigVersion => ({ version: hash.slice(0, VERSION_LENGTH), hash })
