/** Shared builders for the Cedar tests: contexts, calls, tools, and a compiled policy's decisions. */
import { HookContext, type PolicyDecision, type PolicyShape, Principal, Tool, ToolCall } from "@interlock/core"
import { Effect, Exit } from "effect"
import { compileCedar } from "../src/CedarPolicy.ts"

/** A hook context for server `fs`, with an optional principal and roles. */
export const ctx = (principal?: string, roles?: ReadonlyArray<string>) =>
  new HookContext({
    client: "test",
    serverId: "fs",
    era: "2025-11-25",
    assigns: {},
    principal: principal === undefined ? undefined : new Principal({ id: principal, roles })
  })

/** A tool call. */
export const call = (serverId: string, name: string, args: Record<string, unknown> = {}) =>
  new ToolCall({ serverId, name, args: args as ToolCall["args"], callId: "c1" })

/** A tool definition with optional annotations and input schema. */
export const tool = (
  serverId: string,
  name: string,
  annotations?: Record<string, boolean>,
  inputSchema: Tool["inputSchema"] = { type: "object" }
) => new Tool({ serverId, name, inputSchema, annotations })

/** Compiles a policy set (dies on an invalid one: tests of errors use compileCedar directly). */
export const compile = (policies: string) => Effect.orDie(compileCedar({ policies, source: "policy.cedar" }))

/** The decision of a synchronous policy answer. */
export const decided = (answer: Effect.Effect<PolicyDecision>): PolicyDecision => {
  const exit = Exit.isExit(answer) ? (answer as Exit.Exit<PolicyDecision>) : undefined
  if (exit === undefined || !Exit.isSuccess(exit)) throw new Error("not an immediate decision")
  return exit.value
}

/** Decides a call under `policy`. */
export const decideCall = (policy: PolicyShape, c: ToolCall, context = ctx(), t?: Tool): PolicyDecision =>
  decided(policy.decide(c, context, t === undefined ? {} : { tool: t }))
