/**
 * How a run of an agent ends: its body under the run's deadline and the caller's abort signal, a
 * suspended state sealed, the run metric emitted, and the RunResult built from its progress.
 */
import { makeTrusted } from "@interlock/core"
import { Effect } from "effect"
import { Usage } from "./AgentToolCall.ts"
import { emit, type MetricsSink } from "./Metrics.ts"
import type { End, Progress } from "./RunContext.ts"
import { RunResult } from "./RunResult.ts"
import type { RunState } from "./RunState.ts"
import * as RunStateSeal from "./RunStateSeal.ts"

/** Per-run options. */
export interface RunOptions {
  /** Aborting it interrupts the model request and the tools in flight; the run ends with status interrupted. */
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

const aborted = (signal: AbortSignal): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    if (signal.aborted) return resume(Effect.void)
    const onAbort = () => resume(Effect.void)
    signal.addEventListener("abort", onAbort, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", onAbort))
  })

/** Runs `body` under the deadline and the signal, then reports the run as a RunResult. */
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
    if (signal !== undefined) guarded = Effect.raceFirst(guarded, Effect.as(aborted(signal), INTERRUPTED))
    // A state that cannot be sealed (it always can: the loop built it) goes out unsealed, and resume refuses it.
    const sealed = (state: RunState | undefined) =>
      state === undefined
        ? Effect.succeed(undefined)
        : Effect.orElseSucceed(RunStateSeal.seal(env.stateKey, state), () => state)
    return Effect.flatMap(guarded, (end) =>
      Effect.map(sealed(end.state), (state) => {
        const durationMs = clock.currentTimeMillisUnsafe() - start
        const usage = { ...progress.usage, totalTokens: progress.usage.inputTokens + progress.usage.outputTokens }
        emit(env.metrics, {
          type: "run",
          model: env.model,
          status: end.status,
          turns: progress.turns,
          toolCalls: progress.toolCalls.length,
          durationMs,
          ...usage
        })
        return makeTrusted(RunResult, {
          status: end.status,
          text: end.status === "done" ? progress.text : "",
          messages: progress.messages,
          toolCalls: progress.toolCalls,
          toolCallCount: progress.toolCalls.length,
          turns: progress.turns,
          usage: makeTrusted(Usage, usage),
          model: env.model,
          limit: end.limit,
          error: end.error,
          state,
          hooks: progress.hookRuns
        })
      }))
  })
