/**
 * Claude-style hooks that answer allow, ask or deny, as a policy contribution (PreToolUse) or an approver
 * (PermissionRequest): an allow from a hook is a policy decision, the Policy service being the only allow
 * authority. Contributions combine as deny > ask > allow; a hook that fails, times out, returns junk or tries to
 * rewrite the call denies; with no opinion, the fallback decides (default: deny).
 */
import {
  type ApprovalAnswer,
  type ApprovalRequest,
  type HookContext,
  Policy,
  type PolicyDecision,
  type ToolCall
} from "@interlock/core"
import { Effect, Layer } from "effect"
import type { SettingsError } from "./ClaudeErrors.ts"
import type { ClaudeInput } from "./ClaudeEvent.ts"
import {
  type ClaudeHooksConfig,
  compile,
  type CompiledClaudeHook,
  type CompiledClaudeHooks,
  invoke
} from "./ClaudeHook.ts"
import { read } from "./Reading.ts"
import { toolInput } from "./ToolHooks.ts"
import { toClaudeName } from "./ToolNames.ts"

/** A policy hook's deadline when it sets none (Claude Code's 60 s applies to commands). */
const DEFAULT_POLICY_HOOK_TIMEOUT_MS = 5_000

/** What decides when no hook has an opinion. */
export type Fallback = "allow" | "deny" | "ask" | ((call: ToolCall, ctx: HookContext) => Effect.Effect<PolicyDecision>)

/** Options of {@link policy}. */
export interface PolicyOptions {
  /** Decides when no hook answered allow, ask or deny; default "deny". */
  readonly fallback?: Fallback
}

/** Combines contributions: the first deny, else the first ask, else the first allow, else undefined. */
export const combine = (decisions: ReadonlyArray<PolicyDecision>): PolicyDecision | undefined =>
  decisions.find((d) => d._tag === "Deny") ?? decisions.find((d) => d._tag === "Ask") ??
    decisions.find((d) => d._tag === "Allow")

/** One hook's contribution, or undefined for no opinion. Never fails: a failure denies. */
const contribution = (hook: CompiledClaudeHook, input: ClaudeInput): Effect.Effect<PolicyDecision | undefined> =>
  invoke(hook, input, DEFAULT_POLICY_HOOK_TIMEOUT_MS).pipe(
    Effect.map(({ output, warnings }): PolicyDecision | undefined => {
      if (warnings.length > 0) return Policy.deny(`hook ${hook.id} returned a value outside the hook protocol`, hook.id)
      const reading = read(output)
      if (reading.async) return undefined
      if (reading.halt !== undefined) return Policy.deny(reading.halt || `stopped by hook ${hook.id}`, hook.id)
      if (reading.block !== undefined) return Policy.deny(reading.block || `blocked by hook ${hook.id}`, hook.id)
      if (reading.permission === "deny") {
        return Policy.deny(reading.permissionReason ?? `denied by hook ${hook.id}`, hook.id)
      }
      if (reading.updatedInput !== undefined) {
        return Policy.deny(
          `hook ${hook.id} rewrote the input, which a policy cannot do; register it as a hook`,
          hook.id
        )
      }
      if (reading.permission === "ask") {
        return Policy.ask(reading.permissionReason ?? `hook ${hook.id} asks for approval`, hook.id)
      }
      if (reading.permission === "allow") return Policy.allow(hook.id)
      return undefined
    }),
    Effect.catch((error) => Effect.succeed(Policy.deny(error.message, hook.id)))
  )

const fallbackDecision = (
  fallback: Fallback | undefined,
  call: ToolCall,
  ctx: HookContext
): Effect.Effect<PolicyDecision> =>
  typeof fallback === "function"
    ? fallback(call, ctx)
    : Effect.succeed(
      fallback === "allow"
        ? Policy.allow()
        : fallback === "ask"
        ? Policy.ask("approval required: no hook decided")
        : Policy.deny("no hook allows this call")
    )

/** The decide function of compiled PreToolUse hooks: runs each matching hook in order; deny ends early. */
export const decider =
  (hooks: CompiledClaudeHooks, options: PolicyOptions = {}) =>
  (call: ToolCall, ctx: HookContext): Effect.Effect<PolicyDecision> =>
    Effect.gen(function*() {
      const toolName = toClaudeName(call.serverId, call.name)
      const input = toolInput("PreToolUse", call, ctx)
      const decisions: Array<PolicyDecision> = []
      for (const hook of hooks.PreToolUse) {
        if (!hook.matches(toolName)) continue
        const decision = yield* contribution(hook, input)
        if (decision === undefined) continue
        if (decision._tag === "Deny") return decision
        decisions.push(decision)
      }
      return combine(decisions) ?? (yield* fallbackDecision(options.fallback, call, ctx))
    })

/**
 * A Policy Layer from the PreToolUse hooks of a Claude-style config. Mind the pipeline's
 * `policyTimeout` (default 5 s): a decision that misses it denies, so raise it for slow commands.
 */
export const policy = (config: ClaudeHooksConfig, options: PolicyOptions = {}): Layer.Layer<Policy, SettingsError> =>
  Layer.unwrap(Effect.map(compile(config), (hooks) => Policy.make(decider(hooks, options))))

/**
 * An approver for `Approvals.layer` from the PermissionRequest hooks of a compiled config: any
 * deny denies, else an allow allows; no answer, a failure, junk, or an allow that rewrites the
 * input (an approval is bound to the call as asked) denies.
 */
export const approver = (hooks: CompiledClaudeHooks) => (request: ApprovalRequest): Effect.Effect<ApprovalAnswer> =>
  Effect.gen(function*() {
    const toolName = toClaudeName(request.call.serverId, request.call.name)
    const input = toolInput("PermissionRequest", request.call, request.ctx)
    let allowed = false
    for (const hook of hooks.PermissionRequest) {
      if (!hook.matches(toolName)) continue
      const answer = yield* Effect.result(invoke(hook, input, DEFAULT_POLICY_HOOK_TIMEOUT_MS))
      if (answer._tag === "Failure") return { decision: "deny", reason: answer.failure.message } as const
      const decision = read(answer.success.output).permissionDecision
      if (answer.success.warnings.length > 0 || decision?.behavior === "deny") {
        return {
          decision: "deny",
          reason: decision?.behavior === "deny" && decision.message ? decision.message : `denied by hook ${hook.id}`
        } as const
      }
      if (decision?.behavior === "allow") {
        if (decision.updatedInput !== undefined && Object.keys(decision.updatedInput).length > 0) {
          return {
            decision: "deny",
            reason: `hook ${hook.id} rewrote the input; an approval covers the call as asked`
          } as const
        }
        allowed = true
      }
    }
    return allowed
      ? { decision: "allow" } as const
      : { decision: "deny", reason: "no hook approved this call" } as const
  })
