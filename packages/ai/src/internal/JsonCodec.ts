/**
 * The bridge's codec for tools whose outputs are JSON values (the Vercel AI SDK's, OpenAI Agents'), MCP results
 * among them: the tools that an MCP client gives answer with the server's own CallToolResult.
 */
import { NativeTool, ToolResult } from "@interlock/core"
import { Exit, Schema } from "effect"
import type { Codec } from "./Codec.ts"

const decodeResult = Schema.decodeUnknownExit(ToolResult)

/** Whether a value has an MCP CallToolResult's shape: a `content` array of typed blocks. */
const isCallToolResult = (value: unknown): value is { readonly content: ReadonlyArray<unknown> } =>
  typeof value === "object" && value !== null && Array.isArray((value as { content?: unknown }).content) &&
  (value as { content: ReadonlyArray<unknown> }).content.every((block) =>
    typeof block === "object" && block !== null && typeof (block as { type?: unknown }).type === "string"
  )

/**
 * An MCP result as core's result, its blocks, JSON and error flag as they are (one that core's schema rejects is
 * taken as plain JSON); any other value as NativeTool takes a tool's return: text, or text plus its JSON.
 */
const toResult = (value: unknown): ToolResult => {
  if (isCallToolResult(value)) {
    const decoded = decodeResult(value)
    if (Exit.isSuccess(decoded)) return decoded.value
  }
  return NativeTool.toToolResult(value)
}

/**
 * A hook's result for the framework: as an MCP result when the tool answered with one (an error flag included, as
 * MCP has it), else its JSON, or its text; one marked as an error throws its text.
 */
const fromResult = (result: ToolResult, produced: unknown): unknown => {
  if (isCallToolResult(produced)) {
    return {
      content: result.content,
      ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
      isError: result.isError === true
    }
  }
  if (result.isError === true) throw new Error(result.text)
  return result.structuredContent ?? result.text
}

/** JSON outputs, MCP results as such. */
export const jsonCodec: Codec = { toResult, fromResult }
