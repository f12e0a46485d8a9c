/**
 * The bridge: what `interlock claude-hook --config F` does with one event on stdin: Interlock's hooks and policy
 * (from the gateway's config) decide, every decision is audited, and the answer is in Claude Code's format. It
 * never exits 1 (Claude Code lets the tool run): a known event answers in JSON, closed whenever anything fails (an
 * allow whose audit row fails too); input that is no event exits 2.
 */
import {
  ANSWERED,
  AuditRecord,
  HookContext,
  type Hooks,
  type Interlock,
  type JsonObject,
  JsonText,
  type Policy,
  type Receipt,
  type ToolCall,
  ToolResult
} from "@interlock/core"
import { Cause, Clock, Duration, Effect, Exit } from "effect"
import { type AgentEventInput, isAgentEvent, runAgentEvent } from "./AgentEvents.ts"
import { AuditSink } from "./AuditSink.ts"
import { agentAnswer, type ClosedTarget, failClosed } from "./BridgeAgent.ts"
import { type Answer, approvalAnswer, failureAnswer, permissionAnswer, postAnswer, preAnswer } from "./BridgeAnswers.ts"
import { CLAUDE_PRINCIPAL, failWith, governed, lastRewrite, respondWith } from "./BridgeTools.ts"
import type { BadEvent } from "./ClaudeErrors.ts"
import { type ClaudeInput, type ClaudeToolInput, isClaudeEvent, parseEvent } from "./ClaudeEvent.ts"
import { type CompiledClaudeHooks, emptyHooks } from "./ClaudeHook.ts"
import { toWire } from "./ClaudeOutput.ts"
import { approver } from "./PolicyHooks.ts"
import { fromClaudeName } from "./ToolNames.ts"
import { toResult } from "./ToolResponse.ts"

/** What the `claude-hook` command prints and how it exits. */
export interface BridgeResult {
  readonly stdout: string
  readonly exitCode: 0 | 2
  readonly stderr: string
}

/** Options of {@link run}. */
export interface BridgeOptions {
  /**
   * Claude-style hooks for the agent-level events (UserPromptSubmit, Stop, ...) and PermissionRequest (the approvers of
   * an Ask).
   */
  readonly agentHooks?: CompiledClaudeHooks | undefined
  /** Pipeline settings (hookTimeout, policyTimeout, tools filter, ...), as the gateway's config gives them. */
  readonly settings?: Interlock.Settings | undefined
  /**
   * When the answer must be ready (see HookDeadline.ts): the decision gets nine tenths of it, so
   * that a decision that runs out is still audited, and past the whole of it the answer is closed.
   */
  readonly deadline?: Duration.Duration | undefined
  /**
   * A last rewrite of a PreToolUse call that may run, after the hooks and the policy (so that rules
   * see the input as Claude wrote it); its result goes to Claude Code as `updatedInput`. The
   * gateway's Bash redaction (its output through `interlock redact`). Undefined leaves the input.
   */
  readonly rewriteInput?: ((call: ToolCall) => JsonObject | undefined) | undefined
}

const PREFIX = "interlock claude-hook: "

/** The reason of a closed answer given because the deadline passed. */
const LATE = "Interlock did not decide before its deadline, so this is refused"

/** The result for input that is no event the bridge knows: exit 2 (Claude Code blocks), one line on stderr. */
const badInput = (detail: string): BridgeResult => ({
  stdout: "",
  exitCode: 2,
  stderr: `${PREFIX}${detail.replace(/\s*\n\s*/g, "; ")}\n`
})

/** The event's kind (and tool) when stdin names a known event, even if its other fields are bad. */
const kindOf = (stdin: string): ClosedTarget | undefined => {
  let value: unknown
  try {
    value = JsonText.parse(stdin)
  } catch {
    return undefined
  }
  if (typeof value !== "object" || value === null) return undefined
  const { hook_event_name: name, tool_name: tool } = value as { hook_event_name?: unknown; tool_name?: unknown }
  return isClaudeEvent(name)
    ? { hook_event_name: name, tool_name: typeof tool === "string" ? tool : undefined }
    : undefined
}

/** The result for stdin that did not parse into an event: closed in JSON for a known kind, else exit 2. */
const unreadable = (stdin: string, parsed: Exit.Failure<ClaudeInput, BadEvent>): BridgeResult => {
  const error = Cause.findErrorOption(parsed.cause)
  const detail = error._tag === "Some" ? error.value.detail : "the event could not be read"
  const kind = kindOf(stdin)
  return kind === undefined
    ? badInput(detail)
    : answered(failClosed(kind, `Interlock could not read this event: ${detail}`))
}

const answered = (answer: Answer): BridgeResult => ({
  stdout: `${JSON.stringify(toWire(answer.output))}\n`,
  exitCode: 0,
  stderr: ""
})

const toolAnswer = (input: ClaudeToolInput, options: BridgeOptions) =>
  Effect.gen(function*() {
    const settings = options.settings
    switch (input.hook_event_name) {
      case "PreToolUse": {
        const g = lastRewrite(
          yield* governed(input, "preToolCall", respondWith(ToolResult.text("")), settings),
          options.rewriteInput
        )
        return { answer: preAnswer(g), receipt: g.receipt }
      }
      case "PermissionRequest": {
        const g = yield* governed(input, "preToolCall", respondWith(ToolResult.text("")), settings)
        const answer = permissionAnswer(g)
        // The policy asked: the PermissionRequest hooks are its approvers (core's Approvals), if any.
        const hooks = (options.agentHooks?.PermissionRequest ?? []).filter((hook) => hook.matches(input.tool_name))
        const agentHooks = options.agentHooks
        if (answer.decision !== "ask" || hooks.length === 0 || agentHooks === undefined) {
          return { answer, receipt: g.receipt }
        }
        const approval = yield* approver(agentHooks)({
          call: g.original,
          ctx: new HookContext({
            client: "claude-code",
            serverId: g.tool.serverId,
            principal: CLAUDE_PRINCIPAL,
            assigns: { claude: input }
          }),
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

// The events whose receipt holds the policy's decision (the post stages run an allow-all stand-in).
const POLICY_EVENTS: ReadonlySet<string> = new Set(["PreToolUse", "PermissionRequest"])

/** The server of an agent event's record (it names no tool): its tool is the event. */
const EVENT_SERVER = "claude-code"

/**
 * The audit record of one answered event: the bridge's answer in `claudeDecision`, `decision` the policy's (as in the
 * gateway's rows).
 */
const recordOf = (
  input: ClaudeInput,
  time: number,
  durationMs: number,
  answer: Answer,
  receipt: Receipt | undefined
): AuditRecord => {
  const event = input.hook_event_name
  const tool = "tool_name" in input && typeof input.tool_name === "string" ? fromClaudeName(input.tool_name) : undefined
  const toolUseId = (input as { tool_use_id?: unknown }).tool_use_id
  const policy = POLICY_EVENTS.has(event) ? receipt?.policy : undefined
  const rule = policy?.rule ?? answer.rule
  return new AuditRecord({
    time,
    callId: typeof toolUseId === "string" ? toolUseId : "",
    server: tool?.serverId ?? EVENT_SERVER,
    tool: tool?.name ?? event,
    outcome: ANSWERED,
    durationMs,
    event,
    claudeDecision: answer.decision,
    ...(policy === undefined ? {} : { decision: policy.decision }),
    ...(rule === undefined ? {} : { rule }),
    ...(answer.reason === undefined ? {} : { error: answer.reason }),
    ...(answer.digest === undefined ? {} : { digest: answer.digest }),
    ...(answer.rewritten === undefined ? {} : { rewritten: answer.rewritten }),
    ...(receipt === undefined ? {} : { receipt }),
    ...(typeof toolUseId === "string" ? { toolUseId } : {}),
    ...(input.session_id === undefined ? {} : { sessionId: input.session_id })
  })
}

/** Answers an event that was read, failing closed on any failure, and audits the answer. */
const answerEvent = (
  input: ClaudeInput,
  options: BridgeOptions
): Effect.Effect<BridgeResult, never, Hooks | Policy | AuditSink> =>
  Effect.gen(function*() {
    const start = yield* Clock.currentTimeMillis
    const deadline = options.deadline
    const decision = deadline === undefined ? decide(input, options) : decide(input, options).pipe(
      Effect.timeoutOrElse({
        duration: Duration.times(deadline, 0.9),
        orElse: () => Effect.succeed({ answer: failClosed(input, LATE), receipt: undefined })
      })
    )
    const decided = yield* Effect.exit(decision)
    const { answer, receipt } = Exit.isSuccess(decided)
      ? decided.value
      : {
        answer: failClosed(
          input,
          Cause.hasInterruptsOnly(decided.cause)
            ? "Interlock was interrupted"
            : "Interlock failed to evaluate this event"
        ),
        receipt: undefined
      }
    const sink = yield* AuditSink
    const end = yield* Clock.currentTimeMillis
    const recorded = yield* Effect.exit(
      Effect.suspend(() => sink.record(recordOf(input, start, end - start, answer, receipt)))
    )
    if (Exit.isFailure(recorded) && answer.decision === "allow") {
      return answered(failClosed(input, "Interlock could not record this decision in its audit store"))
    }
    return answered(answer)
  })

/**
 * Runs the bridge on one event's JSON text (what Claude Code wrote on stdin). Needs the
 * configured Hooks and Policy services and an AuditSink. Never fails and never throws.
 */
export const run = (
  stdin: string,
  options: BridgeOptions = {}
): Effect.Effect<BridgeResult, never, Hooks | Policy | AuditSink> => {
  const parsed = parseEvent(stdin)
  if (Exit.isFailure(parsed)) return Effect.succeed(unreadable(stdin, parsed))
  const closed = (reason: string) => Effect.succeed(answered(failClosed(parsed.value, reason)))
  const answer = answerEvent(parsed.value, options)
  return (options.deadline === undefined
    ? answer
    : answer.pipe(Effect.timeoutOrElse({ duration: options.deadline, orElse: () => closed(LATE) }))).pipe(
      Effect.catchCause(() => closed("Interlock failed to evaluate this event"))
    )
}

/**
 * The closed answer for an event when the bridge cannot run at all (for example, the config did
 * not load, or no event came before the deadline): deny, block or halt as the event allows, exit
 * 0; input that is no event exits 2.
 */
export const failure = (stdin: string, reason: string): BridgeResult => {
  const parsed = parseEvent(stdin)
  if (Exit.isFailure(parsed)) return unreadable(stdin, parsed)
  return answered(failClosed(parsed.value, reason))
}
