/** Test fixtures: a recording transport for any server (echoes its args), and a pipeline builder. */
import {
  type HooksConfig,
  Interlock,
  Policy,
  type ToolCall,
  ToolCalls,
  ToolResult,
  ToolTransport,
  unsupported
} from "@interlock/core"
import { Effect, Layer } from "effect"

/** A transport that records every call and answers with its args as JSON text (tool "fail" returns an error result). */
export const recording = () => {
  const calls: Array<ToolCall> = []
  const layer = Layer.succeed(ToolTransport, {
    callTool: (call) =>
      Effect.sync(() => {
        calls.push(call)
        return call.name === "fail"
          ? ToolResult.text("it broke", { isError: true })
          : ToolResult.text(JSON.stringify(call.args))
      }),
    listTools: () => Effect.succeed([]),
    readResource: (serverId) => unsupported(serverId, "resources/read"),
    getPrompt: (serverId) => unsupported(serverId, "prompts/get"),
    era: () => "test"
  })
  return { calls, layer }
}

/** A pipeline with these hooks and policy (default allow-all) over a recording transport. */
export const pipeline = (hooks: HooksConfig, policy: Layer.Layer<Policy, any> = Policy.allowAll) => {
  const transport = recording()
  return { calls: transport.calls, layer: Interlock.layer({ hooks, policy }).pipe(Layer.provide(transport.layer)) }
}

/** Calls a tool through the pipeline in context; the Exit, so tests see errors too. */
export const callTool = (
  serverId: string,
  name: string,
  args: Record<string, unknown>,
  assigns?: Record<string, unknown>
) =>
  Effect.flatMap(
    ToolCalls,
    (calls) => Effect.exit(calls.callTool({ serverId, name, args: args as never, callId: "toolu_42" }, { assigns }))
  )
