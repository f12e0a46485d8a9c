/** The result of a tool call: MCP content blocks, structured content, the error flag and `_meta`. */
import { Schema } from "effect"
import { makeTrusted } from "../internal/Trusted.ts"
import type { Receipt } from "./Receipt.ts"

/** One MCP content block: `type` plus whatever fields that type carries (text, data, uri, ...). */
export const ContentBlock = Schema.StructWithRest(Schema.Struct({ type: Schema.String }), [
  Schema.Record(Schema.String, Schema.Json)
])

/** A content block's type. */
export type ContentBlock = typeof ContentBlock.Type

/**
 * A tool's answer. The pipeline attaches `receipt` when the result reaches the caller; it is not one of
 * the Schema's fields, so a result decoded from a hook, an interceptor or a server never carries one.
 */
export class ToolResult extends Schema.Class<ToolResult>("@interlock/core/ToolResult")({
  content: Schema.Array(ContentBlock),
  structuredContent: Schema.optional(Schema.JsonObject),
  isError: Schema.optional(Schema.Boolean),
  meta: Schema.optional(Schema.JsonObject)
}) {
  /** The call's receipt, once the pipeline has attached it (see {@link withReceipt}). */
  declare readonly receipt?: Receipt

  /** A result with one text block. */
  static text(text: string, options?: { readonly isError?: boolean }): ToolResult {
    return makeTrusted(ToolResult, { content: [{ type: "text", text }], isError: options?.isError ?? false })
  }

  /** The concatenated text of the text blocks. */
  get text(): string {
    let out = ""
    for (const block of this.content) {
      if (block.type === "text" && typeof block.text === "string") out += block.text
    }
    return out
  }

  /** This result with a receipt attached. */
  withReceipt(receipt: Receipt): ToolResult {
    return makeTrusted(ToolResult, { ...this, receipt })
  }
}

/** The fixed text of a result withheld because a post-call hook failed. Carries nothing of the raw result. */
export const WITHHELD_TEXT = "Result withheld: a post-call hook failed, so the tool's output was dropped."
