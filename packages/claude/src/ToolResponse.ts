/**
 * Claude Code's `tool_response` and Interlock's ToolResult. An MCP tool's response is its
 * CallToolResult (`{ content, structuredContent?, isError? }`) or just its content blocks; a
 * built-in's is whatever the tool returned. Converting back keeps the shape that came in.
 */
import { type JsonObject, ToolResult } from "@interlock/core"
import { Exit, Schema } from "effect"
import type { Json } from "effect/Schema"

const decodeResult = Schema.decodeUnknownExit(ToolResult)
const decodeBlocks = Schema.decodeUnknownExit(
  Schema.Array(
    Schema.StructWithRest(Schema.Struct({ type: Schema.String }), [Schema.Record(Schema.String, Schema.Json)])
  )
)

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** A ToolResult for a `tool_response`. */
export const toResult = (response: Json | undefined): ToolResult => {
  if (response === undefined || response === null) return new ToolResult({ content: [] })
  if (typeof response === "string") return ToolResult.text(response)
  if (isObject(response) && Array.isArray(response.content)) {
    const exit = decodeResult({
      content: response.content,
      structuredContent: response.structuredContent,
      isError: response.isError
    })
    if (Exit.isSuccess(exit)) return exit.value
  }
  if (Array.isArray(response)) {
    const exit = decodeBlocks(response)
    if (Exit.isSuccess(exit)) return new ToolResult({ content: exit.value })
  }
  return new ToolResult({
    content: [{ type: "text", text: JSON.stringify(response) }],
    structuredContent: isObject(response) ? response : undefined
  })
}

/** A result as a CallToolResult object (nil fields dropped). */
export const callToolResult = (result: ToolResult): JsonObject => ({
  content: result.content as ReadonlyArray<JsonObject>,
  ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
  ...(result.isError === undefined ? {} : { isError: result.isError })
})

/** A result written in the shape of `like` (a response that came in): blocks, a text, or a CallToolResult. */
export const toResponse = (result: ToolResult, like?: Json | undefined): Json => {
  if (Array.isArray(like)) return result.content as ReadonlyArray<JsonObject>
  if (typeof like === "string") return result.text
  return callToolResult(result)
}
