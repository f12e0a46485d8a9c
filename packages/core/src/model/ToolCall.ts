/** One tool call as it moves through the pipeline. */
import { Schema } from "effect"
import { makeTrusted } from "../internal/Trusted.ts"
import { canonicalJson, type Json, sha256Hex } from "./Canonical.ts"

/** A JSON object, the shape of tool arguments and of `_meta`. */
export type JsonObject = { readonly [key: string]: Json }

const digests = new WeakMap<object, string>()

/**
 * A tool call: which server, which tool, the arguments, the call's id and its `_meta`.
 * `digest` is SHA-256 over the RFC 8785 canonical JSON of {serverId, name, args}; it is derived
 * from the fields (computed once, on first use), so a rewritten call always has its own digest.
 */
export class ToolCall extends Schema.Class<ToolCall>("@interlock/core/ToolCall")({
  serverId: Schema.String,
  name: Schema.String,
  args: Schema.JsonObject,
  callId: Schema.String,
  meta: Schema.optional(Schema.JsonObject)
}) {
  /** SHA-256 (hex) of the canonical JSON of {serverId, name, args}. Approvals are bound to it. */
  get digest(): string {
    let digest = digests.get(this)
    if (digest === undefined) {
      const text = canonicalJson({ serverId: this.serverId, name: this.name, args: this.args })
      // args were checked to be JSON when the call was built, so text is always a string here.
      digest = sha256Hex(typeof text === "string" ? text : `!${text.path}`)
      digests.set(this, digest)
    }
    return digest
  }

  /** The same call with other arguments and/or meta (serverId, name and callId stay). */
  with(patch: { readonly args?: JsonObject | undefined; readonly meta?: JsonObject | undefined }): ToolCall {
    return makeToolCall({
      serverId: this.serverId,
      name: this.name,
      callId: this.callId,
      args: patch.args ?? this.args,
      meta: "meta" in patch ? patch.meta : this.meta
    })
  }
}

/** Builds a ToolCall from fields the caller has checked (args a JSON object). */
export const makeToolCall = (fields: {
  readonly serverId: string
  readonly name: string
  readonly args: JsonObject
  readonly callId: string
  readonly meta?: JsonObject | undefined
}): ToolCall => makeTrusted(ToolCall, fields.meta === undefined ? { ...fields, meta: undefined } : fields)
