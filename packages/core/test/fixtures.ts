/**
 * Test fixtures: a recording transport (the pipeline's far side, which core cannot reach for real
 * without MCP) and helpers to build a client from a hooks config.
 */
import { Effect, Layer, Schema } from "effect"
import {
  type CallError,
  type HooksConfig,
  Interlock,
  NativeTool,
  Policy,
  PromptResult,
  ResourceContents,
  Tool,
  ToolCalls,
  ToolResult,
  ToolTransport,
  TransportError
} from "../src/index.ts"

/** What the recording transport saw. */
export interface TransportLog {
  readonly calls: Array<{ readonly serverId: string; readonly name: string; readonly args: unknown }>
  readonly reads: Array<string>
  readonly prompts: Array<{ readonly name: string; readonly args: unknown }>
}

/** A secret that must never leave the pipeline through errors, spans or logs. */
export const SECRET = "sk-live-SECRET-4242424242424242"

/**
 * A transport whose tools are: echo (returns its args as text), fail (TransportError),
 * error (an isError result), secret (a result holding SECRET), hang (never answers).
 */
export const recordingTransport = () => {
  const log: TransportLog = { calls: [], reads: [], prompts: [] }
  const tools = ["echo", "fail", "error", "secret", "hang"].map((name) =>
    new Tool({ serverId: "srv", name, inputSchema: { type: "object" } })
  )
  const layer = Layer.succeed(ToolTransport, {
    callTool: (call) =>
      Effect.suspend(() => {
        log.calls.push({ serverId: call.serverId, name: call.name, args: call.args })
        switch (call.name) {
          case "fail":
            return Effect.fail(new TransportError({ serverId: call.serverId, detail: "connection closed" }))
          case "error":
            return Effect.succeed(ToolResult.text("tool said no", { isError: true }))
          case "secret":
            return Effect.succeed(ToolResult.text(`token=${SECRET}`))
          case "hang":
            return Effect.never
          default:
            return Effect.succeed(ToolResult.text(JSON.stringify(call.args)))
        }
      }),
    listTools: () => Effect.succeed(tools),
    readResource: (_serverId, uri) =>
      Effect.sync(() => {
        log.reads.push(uri)
        return new ResourceContents({ contents: [{ uri, text: "contents" }] })
      }),
    getPrompt: (_serverId, name, args) =>
      Effect.sync(() => {
        log.prompts.push({ name, args })
        return new PromptResult({ messages: [{ role: "user", content: { type: "text", text: JSON.stringify(args) } }] })
      }),
    era: () => "test"
  })
  return { log, layer }
}

/** A client over the recording transport with the given hooks and policy (default allow all). */
export const client = (
  hooks: HooksConfig,
  options: { readonly policy?: Layer.Layer<Policy, any>; readonly settings?: Interlock.Settings } = {}
) => {
  const transport = recordingTransport()
  const layer = Interlock.layer({ ...options.settings, hooks, policy: options.policy ?? Policy.allowAll }).pipe(
    Layer.provide(transport.layer)
  )
  return { log: transport.log, layer }
}

/** Calls srv/<name> with args and returns the Exit-like Result. */
export const call = (name: string, args: Record<string, any> = {}) =>
  Effect.gen(function*() {
    const calls = yield* ToolCalls
    return yield* Effect.result(calls.callTool({ serverId: "srv", name, args }))
  })

/** A native `add` tool, for tests through the real native transport. */
export const addTool = NativeTool.make({
  name: "add",
  parameters: Schema.Struct({ a: Schema.Finite, b: Schema.Finite }),
  run: ({ a, b }) => Effect.succeed(a + b)
})

/** The error of a failed Result, or a thrown assertion. */
export const errorOf = <A>(
  result: { readonly _tag: string; readonly failure?: CallError; readonly success?: A }
): CallError => {
  if (result._tag !== "Failure" || result.failure === undefined) {
    throw new Error(`expected a failure, got ${result._tag}`)
  }
  return result.failure
}
