/**
 * The bridge: what `interlock claude-hook --config F` does with one event. Claude Code runs it as
 * a command hook; it reads one event (stdin), runs Interlock's hooks and policy (the services in
 * context, from the same config as the gateway) and answers in Claude Code's format. Every
 * decision is recorded in the AuditSink.
 *
 * Bad input (not JSON, not an object, an unknown event, a bad field) exits 1 with one line on
 * stderr. Anything else exits 0 with a JSON answer; a failure anywhere answers closed (deny,
 * block, halt), never allow. An allow whose audit row cannot be written becomes a deny.
 */
import { Cause, Clock, Effect, Exit } from "effect"
import { HookContext, type Hooks, type Interlock, type Policy, type Receipt, ToolResult } from "@interlock/core"
import { type AgentEventInput, isAgentEvent, runAgentEvent } from "./AgentEvents.ts"
import { AuditRow, AuditSink } from "./AuditSink.ts"
import { type Answer, approvalAnswer, auditHooks, failureAnswer, permissionAnswer, postAnswer, preAnswer } from "./BridgeAnswers.ts"
import { failWith, governed, respondWith } from "./BridgeTools.ts"
import { agentAnswer, failClosed } from "./BridgeAgent.ts"
import type { ClaudeInput, ClaudeToolInput } from "./ClaudeEvent.ts"
import { parseEvent } from "./ClaudeEvent.ts"
import { type CompiledClaudeHooks, emptyHooks } from "./ClaudeHook.ts"
import { toWire } from "./ClaudeOutput.ts"
import type { BadEvent } from "./Errors.ts"
import { approver } from "./PolicyHooks.ts"
import { fromClaudeName } from "./ToolNames.ts"
import { toResult } from "./ToolResponse.ts"

/** What the `claude-hook` command prints and how it exits. */
export interface BridgeResult {
  readonly stdout: string
  readonly exitCode: 0 | 1
  readonly stderr: string
}

/** Options of {@link run}. */
export interface BridgeOptions {
  /** Claude-style hooks for the agent-level events (UserPromptSubmit, Stop, ...) and PermissionRequest (the approvers of an Ask). */
  readonly agentHooks?: CompiledClaudeHooks | undefined
  /** Pipeline settings (hookTimeout, policyTimeout, tools filter, ...), as the gateway's config gives them. */
  readonly settings?: Interlock.Settings | undefined
}

const PREFIX = "interlock claude-hook: "

/** The result for input the bridge cannot read: exit 1, one line on stderr. */
const badInput = (detail: string): BridgeResult => ({
  stdout: "",
  exitCode: 1,
  stderr: `${PREFIX}${detail.replace(/\s*\n\s*/g, "; ")}\n`
})

/** The bad-input result for stdin that did not parse into an event. */
const unreadable = (parsed: Exit.Failure<ClaudeInput, BadEvent>): BridgeResult => {
  const error = Cause.findErrorOption(parsed.cause)
  return badInput(error._tag === "Some" ? error.value.detail : "the event could not be read")
}

const answered = (answer: Answer): BridgeResult => ({ stdout: `${JSON.stringify(toWire(answer.output))}\n`, exitCode: 0, stderr: "" })

const toolAnswer = (input: ClaudeToolInput, options: BridgeOptions) =>
  Effect.gen(function*() {
    const settings = options.settings
    switch (input.hook_event_name) {
      case "PreToolUse": {
        const g = yield* governed(input, "preToolCall", respondWith(ToolResult.text("")), settings)
        return { answer: preAnswer(g), receipt: g.receipt }
      }
      case "PermissionRequest": {
        const g = yield* governed(input, "preToolCall", respondWith(ToolResult.text("")), settings)
        const answer = permissionAnswer(g)
        // The policy asked: the PermissionRequest hooks are its approvers (core's Approvals), if any.
        const hooks = (options.agentHooks?.PermissionRequest ?? []).filter((hook) => hook.matches(input.tool_name))
        if (answer.decision !== "ask" || hooks.length === 0) return { answer, receipt: g.receipt }
        const approval = yield* approver(options.agentHooks!)({
          call: g.original,
          ctx: new HookContext({ client: "claude-code", serverId: g.tool.serverId, assigns: { claude: input } }),
          reason: answer.reason ?? "",
          rule: answer.rule
        })
        return { answer: approvalAnswer(g, answer, approval), receipt: g.receipt }
      }
      case "PostToolUse": {
        const original = toResult(input.tool_response)
        const g = yield* governed(input, "postToolCall", respondWith(original), settings)
        return { answer: postAnswer(g, original, input.tool_response), receipt: g.receipt }
      }
      case "PostToolUseFailure": {
        const g = yield* governed(input, "toolCallFailed", failWith(fromClaudeName(input.tool_name).serverId), settings)
        return { answer: failureAnswer(g), receipt: g.receipt }
      }
    }
  })

/** No Claude-style hooks at all. */
const EMPTY_HOOKS: CompiledClaudeHooks = emptyHooks()

const decide = (input: ClaudeInput, options: BridgeOptions) => {
  const name = input.hook_event_name
  if (isAgentEvent(name)) {
    return Effect.map(
      runAgentEvent(options.agentHooks ?? EMPTY_HOOKS, input as AgentEventInput),
      (outcome) => ({ answer: agentAnswer(input as AgentEventInput, outcome), receipt: undefined })
    )
  }
  return toolAnswer(input as ClaudeToolInput, options)
}

const rowOf = (input: ClaudeInput, at: number, durationMs: number, answer: Answer, receipt: Receipt | undefined) => {
  const tool = "tool_name" in input && typeof input.tool_name === "string" ? fromClaudeName(input.tool_name) : undefined
  const toolUseId = (input as { tool_use_id?: unknown }).tool_use_id
  return new AuditRow({
    at,
    source: "claude-hook",
    event: input.hook_event_name,
    sessionId: input.session_id,
    toolUseId: typeof toolUseId === "string" ? toolUseId : undefined,
    serverId: tool?.serverId,
    tool: tool?.name,
    decision: answer.decision,
    rule: answer.rule,
    reason: answer.reason,
    hooks: auditHooks(receipt),
    digest: answer.digest,
    rewritten: answer.rewritten,
    durationMs,
    receipt
  })
}

/** Answers an event that was read, failing closed on any failure, and audits the answer. */
const answerEvent = (input: ClaudeInput, options: BridgeOptions): Effect.Effect<BridgeResult, never, Hooks | Policy | AuditSink> =>
  Effect.gen(function*() {
    const start = yield* Clock.currentTimeMillis
    const decided = yield* Effect.exit(decide(input, options))
    const { answer, receipt } = Exit.isSuccess(decided)
      ? decided.value
      : { answer: failClosed(input, Cause.hasInterruptsOnly(decided.cause) ? "Interlock was interrupted" : "Interlock failed to evaluate this event"), receipt: undefined }
    const sink = yield* AuditSink
    const end = yield* Clock.currentTimeMillis
    const recorded = yield* Effect.exit(Effect.suspend(() => sink.record(rowOf(input, start, end - start, answer, receipt))))
    if (Exit.isFailure(recorded) && answer.decision === "allow") {
      return answered(failClosed(input, "Interlock could not record this decision in its audit store"))
    }
    return answered(answer)
  })

/**
 * Runs the bridge on one event's JSON text (what Claude Code wrote on stdin). Needs the
 * configured Hooks and Policy services and an AuditSink. Never fails and never throws.
 */
export const run = (stdin: string, options: BridgeOptions = {}): Effect.Effect<BridgeResult, never, Hooks | Policy | AuditSink> => {
  const parsed = parseEvent(stdin)
  if (Exit.isFailure(parsed)) return Effect.succeed(unreadable(parsed))
  return answerEvent(parsed.value, options).pipe(
    Effect.catchCause(() => Effect.succeed(answered(failClosed(parsed.value, "Interlock failed to evaluate this event"))))
  )
}

/**
 * The closed answer for an event when the bridge cannot run at all (for example, the config did
 * not load): deny, block or halt as the event allows, exit 0; unreadable input still exits 1.
 */
export const failure = (stdin: string, reason: string): BridgeResult => {
  const parsed = parseEvent(stdin)
  if (Exit.isFailure(parsed)) return unreadable(parsed)
  return answered(failClosed(parsed.value, reason))
}
