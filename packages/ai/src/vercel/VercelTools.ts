/**
 * `interlockTools(tools, options)`: a Vercel AI SDK `ToolSet` whose every `execute` runs through Interlock's
 * pipeline first (hooks, the policy, approvals, receipts), keeping each tool's own types, schema and options.
 */
import type { HooksConfig } from "@interlock/core"
import type { ToolExecutionOptions, ToolSet } from "ai"
import { type Bridge, type BridgeOptions, makeBridge } from "../internal/ToolBridge.ts"

/** Options of {@link interlockTools}: core's (hooks, `policy`, approvals, settings), the server id and `onReceipt`. */
export type InterlockToolsOptions<C extends HooksConfig = HooksConfig> = BridgeOptions<C>

const bridges = new WeakMap<object, Bridge>()

/** The signal that aborts when either does. */
const either = (framework: AbortSignal | undefined, ours: AbortSignal): AbortSignal =>
  framework === undefined ? ours : AbortSignal.any([framework, ours])

/**
 * The tools, each `execute` governed: the call goes to the policy (deny by default: name the tools it allows, as
 * `ai/<name>`), and runs only when allowed, with the arguments as the hooks left them; redaction applies before the
 * result reaches the model. A denied or failed call throws, which the SDK reports to the model as a tool error.
 * Tools without `execute` (run by the client or the provider) are left as they are.
 */
export const interlockTools = <TOOLS extends ToolSet, const C extends HooksConfig = HooksConfig>(
  tools: TOOLS,
  options: InterlockToolsOptions<C>
): TOOLS => {
  const entries = Object.entries(tools)
  const bridge = makeBridge(
    entries.map(([name, tool]) => ({
      name,
      title: undefined,
      description: typeof tool.description === "string" ? tool.description : undefined,
      inputSchema: { type: "object" },
      outputSchema: undefined,
      annotations: undefined
    })),
    options
  )
  const governed = Object.fromEntries(entries.map(([name, tool]) => {
    // A ToolSet's tools differ in their input types; each gets back the arguments its own schema accepted.
    const execute = tool.execute as ((input: unknown, options: ToolExecutionOptions<unknown>) => unknown) | undefined
    if (execute === undefined) return [name, tool]
    return [name, {
      ...tool,
      execute: (input: unknown, execution: ToolExecutionOptions<unknown>) =>
        bridge.call(
          name,
          input,
          (args, signal) => execute(args, { ...execution, abortSignal: either(execution.abortSignal, signal) }),
          { toolCallId: execution.toolCallId, signal: execution.abortSignal }
        )
    }]
  })) as TOOLS
  bridges.set(governed, bridge)
  return governed
}

/**
 * Releases what the governed tools hold (hook fibers, the approvals and policy Layers); calls in flight reject,
 * later calls reject with `ClientClosed`. Tools that {@link interlockTools} did not make are an error.
 */
export const closeTools = (tools: ToolSet): Promise<void> => {
  const bridge = bridges.get(tools)
  return bridge === undefined
    ? Promise.reject(new TypeError("closeTools: these tools were not made by interlockTools"))
    : bridge.close()
}
