/**
 * Converts SDK answers to core's Schema classes. Listings and reads are decoded in full; a tool
 * result, which the SDK has already validated against the protocol's CallToolResult schema, is
 * built without a second parse on the hot path.
 */
import { makeTrusted, PromptResult, ProtocolError, ResourceContents, Tool, ToolResult } from "@interlock/core"
import type { CallToolResult, GetPromptResult, ReadResourceResult, Tool as SdkTool } from "@modelcontextprotocol/client"
import { Exit, Schema } from "effect"
import { carriedTask, TASK_META } from "./TaskResult.ts"

const isPlainObject = (u: unknown): u is Record<string, never> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * A tool result from the SDK's (validated) answer. Non-object structuredContent is dropped, as core
 * models objects only. Built as a plain record on ToolResult's prototype, the instance `new` makes
 * once the fields are parsed: `new ToolResult(fields, { disableChecks: true })` would re-parse the content.
 */
export const toToolResult = (result: CallToolResult): ToolResult => {
  // A CreateTaskResult (SEP-2663), as carryTask rewrote it: no content yet, the server's task in meta.
  const task = carriedTask(result._meta)
  if (task !== undefined) {
    return makeTrusted(ToolResult, { content: [], meta: { [TASK_META]: task } })
  }
  return makeTrusted(ToolResult, {
    content: result.content,
    structuredContent: isPlainObject(result.structuredContent) ? result.structuredContent : undefined,
    isError: result.isError,
    meta: result._meta
  })
}

const decodeTool = Schema.decodeUnknownExit(Tool)

/** The tools of one listing as core Tools; a definition core cannot hold is a ProtocolError naming the tool. */
export const toTools = (serverId: string, tools: ReadonlyArray<SdkTool>): Array<Tool> | ProtocolError => {
  const out: Array<Tool> = []
  for (const tool of tools) {
    const decoded = decodeTool({
      serverId,
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      annotations: tool.annotations,
      meta: tool._meta
    })
    if (Exit.isFailure(decoded)) {
      return new ProtocolError({
        serverId,
        code: -32603,
        detail: `tool ${JSON.stringify(tool.name)} has a definition that is not valid JSON`
      })
    }
    out.push(decoded.value)
  }
  return out
}

const decodeResource = Schema.decodeUnknownExit(ResourceContents)
const decodePrompt = Schema.decodeUnknownExit(PromptResult)

/** A resource read's answer as ResourceContents. */
export const toResourceContents = (serverId: string, result: ReadResourceResult): ResourceContents | ProtocolError => {
  const decoded = decodeResource({ contents: result.contents, meta: result._meta })
  return Exit.isSuccess(decoded)
    ? decoded.value
    : new ProtocolError({ serverId, code: -32603, detail: "the resource contents are not valid JSON objects" })
}

/** A prompt get's answer as a PromptResult. */
export const toPromptResult = (serverId: string, result: GetPromptResult): PromptResult | ProtocolError => {
  const decoded = decodePrompt({ description: result.description, messages: result.messages, meta: result._meta })
  return Exit.isSuccess(decoded)
    ? decoded.value
    : new ProtocolError({ serverId, code: -32603, detail: "the prompt messages are not valid JSON objects" })
}
