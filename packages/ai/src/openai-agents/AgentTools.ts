/**
 * `interlockTools(tools, options)` for OpenAI Agents JS: the agent's function tools with every `invoke` run through
 * Interlock's pipeline first (hooks, the policy, approvals, receipts), keeping each tool's own schema and options.
 */
import { type HooksConfig, InterlockError } from "@interlock/core"
import {
  type FunctionTool,
  type Tool,
  ToolGuardrailFunctionOutputFactory,
  ToolInputGuardrailTripwireTriggered
} from "@openai/agents"
import { type BridgeOptions, makeBridge } from "../internal/ToolBridge.ts"

/** Options of {@link interlockTools}: core's (hooks, `policy`, approvals, settings), the server id and `onReceipt`. */
export type InterlockToolsOptions<C extends HooksConfig = HooksConfig> = BridgeOptions<C>

/** The guardrail name that Interlock's verdicts carry in the run's results. */
export const GUARDRAIL = "interlock"

/** Whether an error is a failure of the pipeline itself (a hook or the policy failed or missed its deadline). */
const isFailure = (error: InterlockError): boolean => error._tag !== "Denied"

/** The governed tools, and `close` to release what they hold. */
export interface InterlockTools<T extends ReadonlyArray<Tool<any>>> {
  readonly tools: Array<T[number]>
  readonly close: () => Promise<void>
}

/**
 * The tools, each function tool's `invoke` governed: the call goes to the policy (deny by default: name the tools it
 * allows, as `ai/<name>`) and runs only when allowed, with the arguments as the hooks left them. A deny answers the
 * model with its reason, as a guardrail's `rejectContent` does; a hook or policy that fails ends the run, as
 * `throwException` does (a `ToolCallError` whose `error` is a `ToolInputGuardrailTripwireTriggered`). Hosted and
 * computer tools are left as they are.
 */
export const interlockTools = <const T extends ReadonlyArray<Tool<any>>, const C extends HooksConfig = HooksConfig>(
  tools: T,
  options: InterlockToolsOptions<C>
): InterlockTools<T> => {
  const functions = tools.filter((tool): tool is FunctionTool<any> => tool.type === "function")
  const bridge = makeBridge(
    functions.map((tool) => ({
      name: tool.name,
      title: undefined,
      description: tool.description,
      inputSchema: { type: "object" },
      outputSchema: undefined,
      annotations: undefined
    })),
    options
  )
  const governed = tools.map((tool) => {
    if (tool.type !== "function") return tool
    const invoke = tool.invoke
    const wrapped: FunctionTool<any> = {
      ...tool,
      invoke: async (runContext, input, details) => {
        try {
          const output = await bridge.call(
            tool.name,
            JSON.parse(input),
            // A fresh details object: the SDK's parsed input of the original arguments must not outlive a rewrite.
            (args) => {
              const text = JSON.stringify(args)
              const call = details?.toolCall
              return invoke(runContext, text, {
                ...details,
                ...(call === undefined ? {} : { toolCall: { ...call, arguments: text } })
              })
            },
            { toolCallId: details?.toolCall?.callId, signal: details?.signal }
          )
          return output as string
        } catch (error) {
          if (!InterlockError.is(error)) throw error
          if (!isFailure(error)) return error.message
          const verdict = ToolGuardrailFunctionOutputFactory.throwException({ tag: error._tag })
          throw new ToolInputGuardrailTripwireTriggered(
            `Interlock stopped tool ${tool.name}: ${error.message}`,
            { guardrail: { type: "tool_input", name: GUARDRAIL }, output: verdict }
          )
        }
      }
    }
    return wrapped
  }) as Array<T[number]>
  return { tools: governed, close: bridge.close }
}
