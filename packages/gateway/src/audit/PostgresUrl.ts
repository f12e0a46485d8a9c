/**
 * How a Postgres URL is shown, in a module of its own so that `interlock check` names the store without loading the
 * Postgres client.
 */
import { Redacted } from "effect"

/** Where a URL points, without its password or query: `postgres://user@host:port/database`. */
export const describeUrl = (url: Redacted.Redacted<string>): string => {
  try {
    const parsed = new URL(Redacted.value(url))
    const user = parsed.username === "" ? "" : `${decodeURIComponent(parsed.username)}@`
    return `${parsed.protocol}//${user}${parsed.host}${parsed.pathname}`
  } catch {
    return "(an unparsable Postgres URL)"
  }
}
