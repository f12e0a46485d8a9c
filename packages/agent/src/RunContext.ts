/** What one run carries through its turns: the fixed environment, the mutable progress, how it ended. */
import { Effect } from "effect"
import type { LanguageModel, Prompt } from "effect/ai"
import { AgentHookFailed, RunBlocked, type RunError } from "./AgentErrors.ts"
import type { AgentEvent } from "./AgentEvent.ts"
import { type AgentHookRun, type EventEnd, type HookEnv, runEvent } from "./AgentHookRunner.ts"
import type { CompiledAgentHooks } from "./AgentHooks.ts"
import type { AgentToolCall } from "./AgentToolCall.ts"
import type { CallWatch } from "./CallWatch.ts"
import type { AgentTool } from "./Catalog.ts"
import type { CompactionOptions } from "./CompactionOptions.ts"
import type { MetricsSink } from "./Metrics.ts"
import type { RetryPolicy } from "./Resilience.ts"
import type { RunLimit, RunStatus } from "./RunResult.ts"
import type { RunState } from "./RunState.ts"
import type { StreamEvent } from "./StreamEvent.ts"
import type { ExecEnv } from "./ToolExec.ts"

/** Everything the loop needs that does not change during a run. */
export interface LoopEnv {
  readonly lm: LanguageModel.LanguageModel
  readonly model: string
  /** "main", or the agent's name when it runs as a subagent. */
  readonly agentName: string
  readonly stopEvent: "stop" | "subagentStop"
  readonly maxTurns: number
  readonly exec: ExecEnv
  readonly hooks: CompiledAgentHooks
  readonly hookTimeoutMs: number
  readonly retry: RetryPolicy
  readonly metrics: MetricsSink | undefined
  readonly compaction: CompactionOptions | undefined
}

/** What a run has done so far. */
export interface Progress {
  messages: Array<Prompt.Message>
  tools: ReadonlyArray<AgentTool>
  turns: number
  /** Token totals so far (plain numbers: a Usage is built once, for the result). */
  readonly usage: { inputTokens: number; outputTokens: number }
  readonly toolCalls: Array<AgentToolCall>
  text: string
  stopHookActive: boolean
  readonly hookRuns: Array<AgentHookRun>
  /** Where a streamed run's events go (and its model requests stream); undefined for `run`, which emits none. */
  readonly emit: Emit | undefined
  /** The run's tool calls in flight. */
  readonly calls: CallWatch
}

/** Hands one event of a streamed run to its consumer (waiting while the consumer's buffer is full). */
export type Emit = (event: StreamEvent) => Effect.Effect<void>

/** Emits an event when the run streams; `event` is built only then. */
export const emitEvent = (progress: Progress, event: () => StreamEvent): Effect.Effect<void> =>
  progress.emit === undefined ? Effect.void : progress.emit(event())

/** How a run ended, before it is turned into a RunResult. */
export interface End {
  readonly status: RunStatus
  readonly limit?: RunLimit | undefined
  readonly error?: RunError | undefined
  readonly state?: RunState | undefined
}

/** The hook environment of a run. */
export const hookEnv = (env: LoopEnv, progress: Progress): HookEnv => ({
  hooks: env.hooks,
  hookTimeoutMs: env.hookTimeoutMs,
  runs: progress.hookRuns
})

/** Ends the run on a guard chain's failure or stop verdict; undefined when the chain went through. */
export const guardEnd = <S>(event: AgentEvent, end: EventEnd<S>): End | undefined => {
  if (end._tag === "Failed") {
    return { status: "error", error: new AgentHookFailed({ hookId: end.hook.id, event, kind: end.kind }) }
  }
  if (end._tag === "Stopped" && (end.verdict._tag === "Deny" || end.verdict._tag === "Block")) {
    return { status: "error", error: new RunBlocked({ hookId: end.hook.id, event, reason: end.verdict.reason }) }
  }
  return undefined
}

/** Fires a notification (observe-only: failures are recorded and ignored). */
export const notify = (
  env: LoopEnv,
  progress: Progress,
  kind: "approval_pending" | "compacted" | "turn_limit",
  message: string
) =>
  Effect.asVoid(
    runEvent(hookEnv(env, progress), "notification", { input: () => ({ kind, message }), apply: (s) => s }, undefined)
  )
