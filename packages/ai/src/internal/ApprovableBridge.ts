/**
 * The bridge of an adapter whose framework can ask a person itself (Vercel's tool approvals, OpenAI Agents' run
 * interruptions): with `approvals: "sdk"`, the policy's Ask is answered by that flow, else by core's approvals Layer.
 */
import type { HooksConfig } from "@interlock/core"
import { jsonCodec } from "./JsonCodec.ts"
import { makeSpentApprovals } from "./SpentApprovals.ts"
import { type Bridge, type BridgeOptions, type FrameworkApprovals, makeBridge } from "./ToolBridge.ts"

/** An adapter's options: core's, the server id, `onReceipt`, and `approvals: "sdk"` for the framework's own flow. */
export type ApprovableOptions<C extends HooksConfig = HooksConfig> =
  & Omit<BridgeOptions<C>, "approvals">
  & { readonly approvals?: BridgeOptions<C>["approvals"] | "sdk" }

/** A framework tool as the bridge lists it: its name and description (its input is the framework's to check). */
export interface FrameworkTool {
  readonly name: string
  readonly description: string | undefined
}

/** What an approvable bridge adds: whether the framework's flow answers the Ask, and its approvals spent once each. */
export interface Approvable {
  readonly sdk: boolean
  /** True the first time an approval (by its id) lets a call through, false after. */
  readonly spend: (approval: string) => boolean
}

/** A bridge over `tools` whose Ask, with `approvals: "sdk"`, the framework's flow (`framework`) answers. */
export const makeApprovableBridge = (
  tools: ReadonlyArray<FrameworkTool>,
  options: ApprovableOptions,
  framework: FrameworkApprovals
): Bridge & Approvable => {
  const { approvals, ...rest } = options
  const sdk = approvals === "sdk"
  const listed = tools.map(({ description, name }) => ({
    name,
    title: undefined,
    description,
    inputSchema: { type: "object" },
    outputSchema: undefined,
    annotations: undefined
  }))
  const bridge = makeBridge(listed, sdk ? rest : options as BridgeOptions, jsonCodec, sdk ? framework : undefined)
  return { ...bridge, sdk, spend: makeSpentApprovals().spend }
}
