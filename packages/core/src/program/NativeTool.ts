/**
 * Native Effect tools: tools implemented in the host process, with arguments decoded by a Schema.
 * `ToolTransport.fromTools` serves them as a real transport, so they go through the same pipeline
 * as MCP tools.
 */
import { Cause, type Context, Effect, Exit, Schema } from "effect"
import { lift } from "../hooks/HookRunner.ts"
import { makeTrusted } from "../internal/Trusted.ts"
import { isJson, isJsonObject } from "../model/Canonical.ts"
import { ProtocolError, TransportError } from "../model/Errors.ts"
import { Tool } from "../model/Tool.ts"
import type { JsonObject, ToolCall } from "../model/ToolCall.ts"
import { ToolResult } from "../model/ToolResult.ts"
import { type ToolTransportShape, unsupported } from "./TransportShape.ts"

/** A tool implemented in the host process. `handler` gets raw JSON arguments and never fails. */
export interface NativeTool<R = never> {
  readonly definition: Omit<Tool, "serverId" | "fingerprint">
  readonly handler: (args: JsonObject) => Effect.Effect<ToolResult, never, R>
}

/** Options of {@link make}. */
export interface NativeToolOptions<Args, A, E, R> {
  readonly name: string
  readonly title?: string
  readonly description?: string
  /** Decodes the raw JSON arguments; its JSON Schema becomes the tool's inputSchema. */
  readonly parameters: Schema.Codec<Args, any, never, never>
  readonly annotations?: JsonObject
  /**
   * The tool's body. A string becomes a text block; JSON becomes text plus structuredContent; a ToolResult passes as
   * is.
   */
  readonly run: (args: Args) => Effect.Effect<A, E, R> | PromiseLike<A> | A
}

/** Turns what a tool body returned into a ToolResult. */
export const toToolResult = (value: unknown): ToolResult => {
  if (value instanceof ToolResult) return value
  if (typeof value === "string") return ToolResult.text(value)
  if (value === undefined) return makeTrusted(ToolResult, { content: [] })
  if (!isJson(value)) return ToolResult.text("The tool returned a value that is not JSON.", { isError: true })
  const structuredContent = isJsonObject(value) ? value : undefined
  return makeTrusted(ToolResult, { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent })
}

const failureText = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.findErrorOption(cause)
  if (error._tag === "Some") {
    const message = (error.value as { message?: unknown } | null)?.message
    return typeof message === "string" && message.length > 0 ? `Tool failed: ${message}` : "Tool failed."
  }
  return "Tool failed."
}

/** Defines a native tool whose arguments are decoded (and advertised) by a Schema. */
export const make = <Args, A, E = never, R = never>(options: NativeToolOptions<Args, A, E, R>): NativeTool<R> => {
  const decode = Schema.decodeUnknownExit(options.parameters)
  const document = Schema.toJsonSchemaDocument(options.parameters)
  const inputSchema = {
    ...(document.schema as JsonObject),
    ...(Object.keys(document.definitions).length > 0 ? { $defs: document.definitions as JsonObject } : {})
  }
  return {
    definition: {
      name: options.name,
      title: options.title,
      description: options.description,
      inputSchema,
      outputSchema: undefined,
      annotations: options.annotations
    },
    handler: (args) => {
      const decoded = decode(args)
      if (Exit.isFailure(decoded)) {
        return Effect.succeed(ToolResult.text(`Invalid arguments for ${options.name}.`, { isError: true }))
      }
      return lift(() => options.run(decoded.value)).pipe(
        Effect.exit,
        Effect.flatMap((exit) =>
          Exit.isSuccess(exit)
            ? Effect.succeed(toToolResult(exit.value))
            : Cause.hasInterruptsOnly(exit.cause)
            ? Effect.interrupt
            : Effect.succeed(ToolResult.text(failureText(exit.cause), { isError: true }))
        )
      ) as Effect.Effect<ToolResult, never, R>
    }
  }
}

/** Serves native tools as one server. */
export const nativeTransport = <R>(
  tools: ReadonlyArray<NativeTool<R>>,
  serverId: string,
  context: Context.Context<R>
): ToolTransportShape => {
  const byName = new Map(tools.map((tool) => [tool.definition.name, tool]))
  const listed = tools.map((tool) => new Tool({ ...tool.definition, serverId }))
  const listedByName = new Map(listed.map((tool) => [tool.name, tool]))
  const unknownServer = (id: string) => Effect.fail(new TransportError({ serverId: id, detail: "no such server" }))
  return {
    callTool: (call: ToolCall) => {
      if (call.serverId !== serverId) return unknownServer(call.serverId)
      const tool = byName.get(call.name)
      if (tool === undefined) {
        return Effect.fail(new ProtocolError({ serverId, code: -32602, detail: `Unknown tool: ${call.name}` }))
      }
      return Effect.provideContext(tool.handler(call.args), context)
    },
    listTools: (id) => (id === undefined || id === serverId ? Effect.succeed(listed) : unknownServer(id)),
    readResource: (id) => (id === serverId ? unsupported(serverId, "resources/read") : unknownServer(id)),
    getPrompt: (id) => (id === serverId ? unsupported(serverId, "prompts/get") : unknownServer(id)),
    era: () => "native",
    describeTool: (id, name) => (id === serverId ? listedByName.get(name) : undefined)
  }
}
