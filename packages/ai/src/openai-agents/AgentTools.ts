/**
 * `interlockTools(tools, options)` for OpenAI Agents JS: the agent's function tools with every `invoke` run through
 * Interlock's pipeline first (hooks, the policy, approvals, receipts), keeping each tool's own schema and options.
 */
import { Canonical, type HooksConfig, InterlockError } from "@interlock/core"
import {
  type FunctionTool,
  type RunContext,
  type Tool,
  ToolGuardrailFunctionOutputFactory,
  ToolInputGuardrailTripwireTriggered
} from "@openai/agents"
import { type ApprovableOptions, makeApprovableBridge } from "../internal/ApprovableBridge.ts"

/**
 * Options of {@link interlockTools}: core's (hooks, `policy`, approvals, settings), the server id and `onReceipt`.
 * `approvals: "sdk"` sends the policy's Ask through the SDK's own approvals (a run's `interruptions`).
 */
export type InterlockToolsOptions<C extends HooksConfig = HooksConfig> = ApprovableOptions<C>

const UNAPPROVED = "approval required, and the run's approvals did not approve this call"

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
  const bridge = makeApprovableBridge(
    functions.map((tool) => ({ name: tool.name, description: tool.description })),
    options,
    { by: "openai-agents", unapproved: UNAPPROVED }
  )
  const { sdk } = bridge
  /** Whether the run approved this call (its id), spending the approval: each one lets one call through. */
  const approvedByRun = (runContext: RunContext, name: string, callId: string | undefined): boolean => {
    if (!sdk || callId === undefined || runContext.isToolApproved({ toolName: name, callId }) !== true) return false
    return bridge.spend(callId)
  }
  const governed = tools.map((tool) => {
    if (tool.type !== "function") return tool
    const invoke = tool.invoke
    const own = tool.needsApproval
    const wrapped: FunctionTool<any> = {
      ...tool,
      // With approvals: "sdk", a call the policy would ask about needs the run's approval too.
      ...(sdk
        ? {
          needsApproval: async (runContext, input, callId) =>
            (await own(runContext, input, callId)) ||
            (Canonical.isJsonObject(input) && (await bridge.asks(tool.name, input, callId)) !== undefined)
        } satisfies Pick<FunctionTool<any>, "needsApproval">
        : {}),
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
            {
              toolCallId: details?.toolCall?.callId,
              signal: details?.signal,
              approved: approvedByRun(runContext, tool.name, details?.toolCall?.callId)
            }
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
