/**
 * How a run of an agent ends: its body under the run's deadline and the caller's abort signal, a
 * suspended state sealed, the run metric emitted, and the RunResult built from its progress (with a
 * record of each tool call still in flight when it was cut short).
 */
import { makeTrusted } from "@interlock/core"
import { Effect } from "effect"
import { Usage } from "./AgentToolCall.ts"
import { cancelledCalls } from "./CallWatch.ts"
import { emit, type MetricsSink } from "./Metrics.ts"
import type { End, Progress } from "./RunContext.ts"
import { RunResult } from "./RunResult.ts"
import type { RunState } from "./RunState.ts"
import * as RunStateSeal from "./RunStateSeal.ts"

/** Per-run options. */
export interface RunOptions {
  /**
   * Aborting it interrupts the model request and the tools in flight; the run ends with status
   * interrupted (`run`) or cancelled (`stream`).
   */
  readonly signal?: AbortSignal | undefined
}

/** What reporting a run needs from its agent. */
export interface ReportEnv {
  readonly model: string
  /** The run's deadline in ms, when it has one. */
  readonly deadlineMs: number | undefined
  readonly stateKey: RunStateSeal.StateKey
  readonly metrics: MetricsSink | undefined
}

const TIMEOUT = (ms: number): End => ({ status: "timeout", limit: { kind: "deadline", value: ms } })
const INTERRUPTED: End = { status: "interrupted" }
const CANCELLED: End = { status: "cancelled" }

const aborted = (signal: AbortSignal): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    if (signal.aborted) return resume(Effect.void)
    const onAbort = () => resume(Effect.void)
    signal.addEventListener("abort", onAbort, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", onAbort))
  })

/** How a cancelled run ends: `cancelled` for a stream, `interrupted` for `run` (as it always has). */
const cancelledEnd = (progress: Progress): End => (progress.emit === undefined ? INTERRUPTED : CANCELLED)

/**
 * The RunResult of a run that ended with `end`, with a record for each call of a turn cut short
 * (those still in flight with the agent's receipts), and the run's metric (and a tool metric for
 * each call cut).
 */
const report = (env: ReportEnv, progress: Progress, end: End, state: RunState | undefined, durationMs: number) => {
  const cancelled = cancelledCalls(progress.calls)
  for (const call of cancelled) {
    emit(env.metrics, {
      type: "tool",
      name: call.name,
      serverId: call.receipt?.serverId ?? "",
      callId: call.id,
      turn: call.turn,
      isError: true,
      outcome: "cancelled",
      durationMs: 0
    })
  }
  // A turn cut short did not record its calls: those that settled, then those still in flight.
  const unrecorded = progress.calls.done
  const toolCalls = cancelled.length === 0 && unrecorded.length === 0
    ? progress.toolCalls
    : [...progress.toolCalls, ...unrecorded, ...cancelled]
  const usage = { ...progress.usage, totalTokens: progress.usage.inputTokens + progress.usage.outputTokens }
  emit(env.metrics, {
    type: "run",
    model: env.model,
    status: end.status,
    turns: progress.turns,
    toolCalls: toolCalls.length,
    durationMs,
    ...usage
  })
  return makeTrusted(RunResult, {
    status: end.status,
    text: end.status === "done" ? progress.text : "",
    messages: progress.messages,
    toolCalls,
    toolCallCount: toolCalls.length,
    turns: progress.turns,
    usage: makeTrusted(Usage, usage),
    model: env.model,
    limit: end.limit,
    error: end.error,
    state,
    hooks: progress.hookRuns
  })
}

/**
 * Runs `body` under the deadline and the signal, then reports the run as a RunResult. An
 * interrupted run (its fiber, or a stream's consumer that stopped) still emits its metrics.
 */
export const finish = (
  env: ReportEnv,
  progress: Progress,
  body: Effect.Effect<End>,
  runOptions: RunOptions | undefined
): Effect.Effect<RunResult> =>
  Effect.clockWith((clock) => {
    const start = clock.currentTimeMillisUnsafe()
    const deadline = env.deadlineMs
    let guarded = body
    if (deadline !== undefined) {
      guarded = deadline <= 0
        ? Effect.succeed(TIMEOUT(deadline))
        : Effect.map(
          Effect.timeoutOption(body, deadline),
          (end) => (end._tag === "Some" ? end.value : TIMEOUT(deadline))
        )
    }
    const signal = runOptions?.signal
    if (signal !== undefined) guarded = Effect.raceFirst(guarded, Effect.as(aborted(signal), cancelledEnd(progress)))
    // A state that cannot be sealed (it always can: the loop built it) goes out unsealed, and resume refuses it.
    const sealed = (state: RunState | undefined) =>
      state === undefined
        ? Effect.succeed(undefined)
        : Effect.orElseSucceed(RunStateSeal.seal(env.stateKey, state), () => state)
    const elapsed = () => clock.currentTimeMillisUnsafe() - start
    return Effect.flatMap(guarded, (end) =>
      Effect.map(sealed(end.state), (state) => report(env, progress, end, state, elapsed()))).pipe(
        Effect.onInterrupt(() =>
          Effect.sync(() =>
            void report(env, progress, cancelledEnd(progress), undefined, elapsed())
          )
        )
      )
  })
