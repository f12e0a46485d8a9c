/**
 * `interlockTools(tools, options)`: a Vercel AI SDK `ToolSet` whose every `execute` runs through Interlock's
 * pipeline first (hooks, the policy, approvals, receipts), keeping each tool's own types, schema and options.
 */
import type { HooksConfig } from "@interlock/core"
import type { ToolExecutionOptions, ToolSet } from "ai"
import { type Approvable, type ApprovableOptions, makeApprovableBridge } from "../internal/ApprovableBridge.ts"
import type { Bridge } from "../internal/ToolBridge.ts"
import { approvalOf } from "./ApprovalRecord.ts"

/**
 * Options of {@link interlockTools}: core's (hooks, `policy`, approvals, settings), the server id and `onReceipt`.
 * `approvals: "sdk"` sends the policy's Ask through the SDK's own approval flow (see `interlockApproval`).
 */
export type InterlockToolsOptions<C extends HooksConfig = HooksConfig> = ApprovableOptions<C>

/** What governed tools hold: their bridge (which says whether the SDK's flow answers the Ask) and its names. */
export interface Governed {
  readonly bridge: Bridge & Approvable
  readonly names: ReadonlySet<string>
}

const governedSets = new WeakMap<object, Governed>()

/** What {@link interlockTools} made these tools with, if it made them. */
export const governedOf = (tools: ToolSet): Governed | undefined => governedSets.get(tools)

const UNAPPROVED = "approval required, and the SDK's approval flow did not approve this call " +
  "(pass toolApproval: interlockApproval(tools) to generateText or streamText)"

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
  const bridge = makeApprovableBridge(
    entries.map(([name, tool]) => ({
      name,
      description: typeof tool.description === "string" ? tool.description : undefined
    })),
    options,
    { by: "ai-sdk", unapproved: UNAPPROVED }
  )
  const { sdk } = bridge
  /** Whether the SDK's record approves this call, spending the approval: each one lets one call through. */
  const approvedBySdk = (name: string, input: unknown, execution: ToolExecutionOptions<unknown>): boolean => {
    if (!sdk) return false
    const approval = approvalOf(execution.messages, execution.toolCallId, name, input)
    return approval !== undefined && bridge.spend(approval)
  }
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
          {
            toolCallId: execution.toolCallId,
            signal: execution.abortSignal,
            approved: approvedBySdk(name, input, execution)
          }
        )
    }]
  })) as TOOLS
  const names = new Set(entries.flatMap(([name, tool]) => (tool.execute === undefined ? [] : [name])))
  governedSets.set(governed, { bridge, names })
  return governed
}

/**
 * Releases what the governed tools hold (hook fibers, the approvals and policy Layers); calls in flight reject,
 * later calls reject with `ClientClosed`. Tools that {@link interlockTools} did not make are an error.
 */
export const closeTools = (tools: ToolSet): Promise<void> => {
  const governed = governedSets.get(tools)
  return governed === undefined
    ? Promise.reject(new TypeError("closeTools: these tools were not made by interlockTools"))
    : governed.bridge.close()
}
