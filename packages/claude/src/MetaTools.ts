/**
 * Claude Code's meta-tools: built-ins that only find, select or describe other tools (`ToolSearch` answers with
 * tool references, not a call). The bridge governs them as listings, as the gateway governs `tools/list`: the
 * policy's default does not apply to them (so `default: "deny"` still lets MCP tools be found), while a rule that
 * names one and pre-hooks still do. Pure.
 */
import { Policy, type PolicyShape } from "@interlock/core"
import { Effect } from "effect"

/** The Claude Code tools that only select or describe tools (or MCP resources). */
export const META_TOOLS: ReadonlySet<string> = new Set(["ToolSearch", "ListMcpResourcesTool"])

/** Whether a Claude tool name names a meta-tool. */
export const isMetaTool = (toolName: string): boolean => META_TOOLS.has(toolName)

/**
 * The policy for a meta-tool's call: the configured policy's decision when a rule decided (it
 * names the rule), an allow with no rule (a listing, no opinion for Claude Code) when only the
 * default would.
 */
export const listingPolicy = (policy: PolicyShape): PolicyShape => ({
  ...policy,
  decide: (call, ctx, facts) =>
    Effect.map(policy.decide(call, ctx, facts), (decision) => (decision.rule === undefined ? Policy.allow() : decision))
})
