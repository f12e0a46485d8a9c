/** A tool as a server lists it, with a fingerprint to notice when its definition changes. */
import { Schema } from "effect"
import { digestJson } from "./Canonical.ts"

const fingerprints = new WeakMap<object, string>()

/**
 * A tool definition. `annotations` carries MCP hints such as destructiveHint and readOnlyHint;
 * `meta` is the server's `_meta` (an extension's data, such as MCP Apps' `ui`).
 */
export class Tool extends Schema.Class<Tool>("@interlock/core/Tool")({
  serverId: Schema.String,
  name: Schema.String,
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  inputSchema: Schema.JsonObject,
  outputSchema: Schema.optional(Schema.JsonObject),
  annotations: Schema.optional(Schema.JsonObject),
  meta: Schema.optional(Schema.JsonObject)
}) {
  /** SHA-256 over the canonical JSON of the definition (everything but serverId). */
  get fingerprint(): string {
    let fingerprint = fingerprints.get(this)
    if (fingerprint === undefined) {
      const { serverId: _serverId, ...definition } = this
      const digest = digestJson(definition)
      fingerprint = typeof digest === "string" ? digest : "invalid"
      fingerprints.set(this, fingerprint)
    }
    return fingerprint
  }
}
