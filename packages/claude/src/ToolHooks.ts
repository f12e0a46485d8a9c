/**
 * Claude-style tool hooks in the Interlock pipeline: PreToolUse, PostToolUse and PostToolUseFailure hooks become
 * preToolCall, postToolCall and toolCallFailed hooks, and an async hook runs detached as an observer. Allow and
 * ask are no hook verdicts (register such hooks with `ClaudeHooks.policy`): like any return that gives a warning,
 * they are a bad_return, and the call fails closed.
 */
import {
  type CallError,
  type HookContext,
  type HookKind,
  type HooksConfig,
  type ToolCall,
  type ToolResult,
  Verdict
} from "@interlock/core"
import { Effect, Predicate } from "effect"
import type { SettingsError } from "./ClaudeErrors.ts"
import type { ClaudeInput } from "./ClaudeEvent.ts"
import { type ClaudeHooksConfig, compile, type CompiledClaudeHook, invoke } from "./ClaudeHook.ts"
import { addContext, CONTEXT_KEY, contextOf, HALT_KEY } from "./ClaudeMeta.ts"
import { read, type Reading } from "./Reading.ts"
import { toClaudeName } from "./ToolNames.ts"
import { callToolResult, toResult } from "./ToolResponse.ts"

/** What core decodes as a bad_return (no verdict has this tag). */
const BAD_RETURN = Object.freeze({ _tag: "ClaudeBadReturn" })

/** The deadline passed to `invoke`: a backstop, since the pipeline's own hook deadline applies first. */
const OUTER_DEADLINE_MS = 10 * 60_000

/** The base fields of the Claude session a call belongs to: `ctx.assigns.claude`, kept as it came. */
const sessionFields = (ctx: HookContext): Record<string, unknown> => {
  const claude = ctx.assigns.claude
  return Predicate.isObject(claude) ? { ...claude } : {}
}

/** The Claude input of a tool event for an Interlock call: the session's fields, then the call's. */
export const toolInput = (
  event: string,
  call: ToolCall,
  ctx: HookContext,
  extra: Record<string, unknown> = {}
): ClaudeInput =>
  ({
    ...sessionFields(ctx),
    hook_event_name: event,
    tool_name: toClaudeName(call.serverId, call.name),
    tool_input: call.args,
    tool_use_id: call.callId,
    ...extra
  }) as ClaudeInput

const errorResult = (text: string, meta?: Record<string, string>) => ({
  content: [{ type: "text", text }],
  isError: true,
  ...(meta === undefined ? {} : { meta })
})

/**
 * PreToolUse reading -> preToolCall verdict: deny and block are Deny, `updatedInput` a Rewrite, halt a Halt whose
 * error result records the stop reason in `_meta["claude/stopReason"]`; `additionalContext` goes in the call's
 * `_meta["claude/additionalContext"]`.
 */
const preVerdict = (reading: Reading, call: ToolCall): unknown => {
  if (reading.async) return Verdict.continue
  if (reading.halt !== undefined) {
    return Verdict.halt(errorResult(reading.halt || "Stopped by a hook.", { [HALT_KEY]: reading.halt }))
  }
  if (reading.block !== undefined) return Verdict.deny(reading.block || "blocked by hook")
  if (reading.permission === "deny") return Verdict.deny(reading.permissionReason ?? "denied by hook")
  if (reading.permission !== undefined) return BAD_RETURN
  const meta = reading.additionalContext === undefined ? undefined : addContext(call.meta, reading.additionalContext)
  if (reading.updatedInput !== undefined || meta !== undefined) {
    return Verdict.rewrite({ args: reading.updatedInput, meta })
  }
  return Verdict.continue
}

/**
 * PostToolUse reading -> postToolCall verdict: block withholds the result (Replace with an error), halt replaces
 * it as PreToolUse's does, `updatedMCPToolOutput` replaces it, and `additionalContext` joins its `_meta`.
 */
const postVerdict = (reading: Reading, result: ToolResult): unknown => {
  if (reading.async) return Verdict.continue
  if (reading.halt !== undefined) {
    return Verdict.replace(errorResult(reading.halt || "Stopped by a hook.", { [HALT_KEY]: reading.halt }))
  }
  if (reading.block !== undefined) {
    return Verdict.replace(errorResult(reading.block || "The tool's output was blocked by a hook."))
  }
  if (reading.updatedMCPToolOutput === undefined && reading.additionalContext === undefined) return Verdict.continue
  const base = reading.updatedMCPToolOutput === undefined ? result : toResult(reading.updatedMCPToolOutput)
  // Context that earlier hooks gave stays with the result, whatever replaced it.
  const contexts = [
    ...contextOf(result.meta),
    ...(reading.additionalContext === undefined ? [] : [reading.additionalContext])
  ]
  const meta = contexts.length === 0 ? base.meta : { ...base.meta, [CONTEXT_KEY]: contexts }
  return Verdict.replace(
    { ...callToolResult(base), ...(meta === undefined ? {} : { meta }) } as Verdict.ToolResultInput
  )
}

const onHook = (
  hook: CompiledClaudeHook,
  input: () => ClaudeInput,
  verdict: (reading: Reading) => unknown
): Effect.Effect<unknown> | unknown => {
  if (hook.async) {
    return Effect.as(
      Effect.forkDetach(Effect.ignore(invoke(hook, input(), hook.timeoutMs ?? OUTER_DEADLINE_MS))),
      Verdict.continue
    )
  }
  // The pipeline applies the hook's deadline itself (and reports it as a timeout), so invoke gets none.
  return Effect.map(
    invoke({ ...hook, timeoutMs: undefined }, input(), OUTER_DEADLINE_MS),
    ({ output, warnings }) => warnings.length > 0 ? BAD_RETURN : verdict(read(output))
  )
}

const entry = (hook: CompiledClaudeHook, run: (...args: Array<any>) => unknown) => ({
  match: "*",
  id: hook.id,
  ...(hook.timeoutMs === undefined || hook.async ? {} : { timeout: hook.timeoutMs }),
  ...(hook.async ? { kind: "observe" as HookKind } : {}),
  run
})

/** Claude's own error text when the session has one (the bridge), else Interlock's error message. */
const failureFields = (ctx: HookContext, error: CallError) => {
  const session = sessionFields(ctx)
  return {
    error: typeof session.error === "string" ? session.error : error.message,
    is_interrupt: session.is_interrupt === true
  }
}

const matches = (hook: CompiledClaudeHook, call: ToolCall) => hook.matches(toClaudeName(call.serverId, call.name))

/**
 * The Interlock entries of compiled Claude hooks (PreToolUse, PostToolUse, PostToolUseFailure).
 * Their hooks answer `unknown`, which core decodes against the event's row as it does any host
 * hook's answer, so the three lists are cast to core's entries once, here.
 */
export const entriesOf = (
  hooks: { readonly [E in "PreToolUse" | "PostToolUse" | "PostToolUseFailure"]: ReadonlyArray<CompiledClaudeHook> }
): HooksConfig =>
  ({
    preToolCall: hooks.PreToolUse.map((hook) =>
      entry(
        hook,
        (call: ToolCall, ctx: HookContext) =>
          matches(hook, call)
            ? onHook(hook, () => toolInput("PreToolUse", call, ctx), (reading) => preVerdict(reading, call))
            : Verdict.continue
      )
    ),
    postToolCall: hooks.PostToolUse.map((hook) =>
      entry(hook, (call: ToolCall, result: ToolResult, ctx: HookContext) =>
        matches(hook, call)
          ? onHook(
            hook,
            () => toolInput("PostToolUse", call, ctx, { tool_response: callToolResult(result) }),
            (reading) => postVerdict(reading, result)
          )
          : Verdict.continue)
    ),
    toolCallFailed: hooks.PostToolUseFailure.map((hook) =>
      entry(hook, (call: ToolCall, error: CallError, ctx: HookContext) =>
        matches(hook, call)
          ? onHook(
            hook,
            () => toolInput("PostToolUseFailure", call, ctx, failureFields(ctx, error)),
            () => Verdict.continue
          )
          : Verdict.continue)
    )
  }) as unknown as HooksConfig

/**
 * Interlock hooks (preToolCall, postToolCall, toolCallFailed) from a Claude-style hooks config.
 * Pass the result as `hooks` to `Interlock.layer`. Matchers are regexes on Claude tool names.
 * The other events' hooks are not pipeline hooks: compile the config and give them to
 * `runAgentEvent` (agent-level events) or `approver` (PermissionRequest).
 */
export const toInterlock = (config: ClaudeHooksConfig): Effect.Effect<HooksConfig, SettingsError> =>
  Effect.map(compile(config), entriesOf)
