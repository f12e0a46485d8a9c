/**
 * The runs of a built agent: a new run on a prompt (userPromptSubmit or subagentStart hooks, then
 * the turn loop), and the resume of a suspended one (its pending calls answered, then the loop goes
 * on). Each lists the governed tools first; a listing failure ends the run with status error.
 */
import type { ApprovalsShape, ToolCallsShape } from "@interlock/core"
import { Effect, Queue, Stream } from "effect"
import { type LanguageModel, Prompt } from "effect/ai"
import { InvalidRunState, type UntrustedRunState } from "./AgentErrors.ts"
import { runEvent, STOP } from "./AgentHookRunner.ts"
import type { CompiledAgentHooks } from "./AgentHooks.ts"
import type { AgentSettings, Resolved } from "./AgentOptions.ts"
import { AgentToolCall } from "./AgentToolCall.ts"
import { makeWatch } from "./CallWatch.ts"
import { type Catalog, catalogCache, makeCatalog } from "./Catalog.ts"
import { runTurns, settleTurn, userText } from "./Loop.ts"
import { type Emit, type End, guardEnd, hookEnv, type LoopEnv, type Progress } from "./RunContext.ts"
import { finish, type ReportEnv, type RunOptions } from "./RunReport.ts"
import type { RunResult } from "./RunResult.ts"
import { PendingCall, type RunState } from "./RunState.ts"
import * as RunStateSeal from "./RunStateSeal.ts"
import type { StreamEvent } from "./StreamEvent.ts"
import { execCall, type ExecEnv, requestDigest, type Slot } from "./ToolExec.ts"

/** The decision for a suspended run's pending calls: for all of them, or by call id (missing ids are denied). */
export type ResumeDecision = "approve" | "deny" | Readonly<Record<string, "approve" | "deny">>

/** What every run of one built agent shares: its settings, model, governed tools and hooks. */
export interface AgentRuntime {
  readonly resolved: Resolved
  readonly settings: Pick<AgentSettings, "system" | "metrics" | "compaction">
  /** True when no approver was given: an Ask then suspends the run. */
  readonly suspend: boolean
  /** True when the agent runs as another agent's tool. */
  readonly subagent: boolean
  readonly lm: LanguageModel.LanguageModel
  readonly modelName: string
  readonly toolCalls: ToolCallsShape
  readonly grants: ApprovalsShape
  readonly hooks: CompiledAgentHooks
}

/** Events a streamed run may hold before its consumer takes them (the model's stream waits beyond that). */
const STREAM_BUFFER = 16

/** A built agent's entry points. */
export interface AgentRuns {
  readonly run: (prompt: string, options?: RunOptions) => Effect.Effect<RunResult>
  /** The same run as a Stream of its events, the RunResult last; the model's answers stream. */
  readonly stream: (prompt: string, options?: RunOptions) => Stream.Stream<StreamEvent>
  readonly resume: (
    state: RunState,
    decision: ResumeDecision,
    options?: RunOptions
  ) => Effect.Effect<RunResult, InvalidRunState | UntrustedRunState>
}

const progressOf = (messages: Array<Prompt.Message>, catalog: Catalog, out: Emit | undefined): Progress => ({
  messages,
  tools: catalog.tools,
  turns: 0,
  usage: { inputTokens: 0, outputTokens: 0 },
  toolCalls: [],
  text: "",
  stopHookActive: false,
  hookRuns: [],
  emit: out,
  calls: makeWatch(out === undefined ? undefined : (call) => out({ _tag: "ToolResult", turn: call.turn, call }))
})

/**
 * Answers one slot of a suspended turn: a settled call as it was, a denied pending call with the
 * denial, an approved one by running it (its grant bound to the digest it was suspended with).
 */
const answerSlot = (
  grants: ApprovalsShape,
  env: LoopEnv,
  progress: Progress,
  active: ReadonlySet<string>,
  turn: number,
  decision: ResumeDecision
) =>
(slot: RunState["slots"][number]): Effect.Effect<Slot> => {
  if (!(slot instanceof PendingCall)) {
    const call = new AgentToolCall({
      id: slot.id,
      name: slot.name,
      args: null,
      output: slot.output,
      isError: slot.isError,
      turn
    })
    return Effect.succeed({ _tag: "settled", call, recorded: true })
  }
  const verdict = typeof decision === "string" ? decision : decision[slot.id] ?? "deny"
  if (verdict !== "approve") {
    const call = new AgentToolCall({
      id: slot.id,
      name: slot.name,
      args: slot.args,
      output: "approval denied: the call was refused on resume",
      isError: true,
      turn
    })
    return Effect.succeed({ _tag: "settled", call })
  }
  // The grant is bound to the digest the call was suspended with; an edited call no longer matches it.
  const untouched = requestDigest(slot.serverId, slot.toolName, slot.args) === slot.requestDigest
  const grant = untouched ? grants.grant(slot.digest) : Effect.void
  const call = { id: slot.id, name: slot.name, params: slot.args }
  return Effect.andThen(grant, execCall(env.exec, active, call, turn, progress.calls))
}

/** The runs of an agent over its runtime. */
export const makeRuns = (rt: AgentRuntime): AgentRuns => {
  const { resolved, settings, subagent, toolCalls } = rt
  const system = settings.system === undefined ? [] : [Prompt.systemMessage({ content: settings.system })]
  const report: ReportEnv = {
    model: rt.modelName,
    deadlineMs: resolved.deadlineMs,
    stateKey: resolved.stateKey,
    metrics: settings.metrics
  }
  const catalogOf = catalogCache()

  const envs = new WeakMap<Catalog, LoopEnv>()
  const loopEnv = (catalog: Catalog): LoopEnv => {
    const cached = envs.get(catalog)
    if (cached !== undefined) return cached
    const exec: ExecEnv = {
      toolCalls,
      catalog,
      suspend: rt.suspend,
      concurrency: resolved.concurrency,
      metrics: settings.metrics
    }
    const env: LoopEnv = {
      lm: rt.lm,
      model: rt.modelName,
      agentName: resolved.name,
      stopEvent: subagent ? "subagentStop" : "stop",
      maxTurns: resolved.maxTurns,
      exec,
      hooks: rt.hooks,
      hookTimeoutMs: resolved.hookTimeoutMs,
      retry: resolved.retry,
      metrics: settings.metrics,
      compaction: settings.compaction
    }
    envs.set(catalog, env)
    return env
  }

  /** Lists the governed tools; a listing failure ends the run with status error. */
  const withCatalog = <E>(
    out: Emit | undefined,
    use: (catalog: Catalog) => Effect.Effect<RunResult, E>
  ): Effect.Effect<RunResult, E> =>
    Effect.flatMap(Effect.result(toolCalls.listTools()), (listed) => {
      if (listed._tag === "Success") return use(catalogOf(listed.success))
      const progress = progressOf([], makeCatalog([]), out)
      return finish(report, progress, Effect.succeed({ status: "error", error: listed.failure }), undefined)
    })

  /** A run on a prompt; with `out`, a streamed one (its model requests stream, its events go to `out`). */
  const runWith = (prompt: string, runOptions: RunOptions | undefined, out: Emit | undefined) =>
    withCatalog(out, (catalog) => {
      const env = loopEnv(catalog)
      const progress = progressOf([...system, userText(prompt)], catalog, out)
      const event = subagent ? "subagentStart" : "userPromptSubmit"
      const input = subagent ? { agent: resolved.name, prompt } : { prompt, messages: progress.messages }
      const submitted = runEvent(hookEnv(env, progress), event, {
        input: () => input,
        apply: (
          notes: ReadonlyArray<string>,
          verdict
        ) => (verdict._tag === "AddContext" ? [...notes, verdict.text] : verdict._tag === "Continue" ? notes : STOP)
      }, [] as ReadonlyArray<string>)
      const start = Effect.flatMap(submitted, (end): Effect.Effect<End> => {
        if (end._tag !== "Done") return Effect.succeed(guardEnd(event, end) ?? { status: "error" })
        const notes = end.state.map((text) => Prompt.systemMessage({ content: text }))
        progress.messages.splice(progress.messages.length - 1, 0, ...notes)
        return runTurns(env, progress)
      })
      return finish(report, progress, start, runOptions)
    })

  const run = (prompt: string, runOptions?: RunOptions): Effect.Effect<RunResult> =>
    runWith(prompt, runOptions, undefined)

  const stream = (prompt: string, runOptions?: RunOptions): Stream.Stream<StreamEvent> =>
    Stream.callback<StreamEvent>(
      (queue) =>
        Effect.flatMap(
          runWith(prompt, runOptions, (event) => Effect.asVoid(Queue.offer(queue, event))),
          (result) => Effect.andThen(Queue.offer(queue, { _tag: "Result", result }), Queue.end(queue))
        ),
      { bufferSize: STREAM_BUFFER, strategy: "suspend" }
    )

  const resume = (given: RunState, decision: ResumeDecision, runOptions?: RunOptions) =>
    Effect.flatMap(RunStateSeal.verify(resolved.stateKey, given), (state) =>
      withCatalog(undefined, (catalog) => {
        if (state.version !== 1 || !Array.isArray(state.slots)) {
          return Effect.fail(new InvalidRunState({ detail: "not a run state of this version" }))
        }
        const env = loopEnv(catalog)
        const tools = state.tools.flatMap((name) => catalog.byName.get(name) ?? [])
        const progress: Progress = {
          ...progressOf([...state.messages], catalog, undefined),
          tools,
          turns: state.turns,
          usage: { inputTokens: state.inputTokens, outputTokens: state.outputTokens },
          toolCalls: [...state.toolCalls],
          stopHookActive: state.stopHookActive
        }
        const active = new Set(tools.map((tool) => tool.name))
        const answer = answerSlot(rt.grants, env, progress, active, state.turns - 1, decision)
        const body = Effect.gen(function*() {
          const slots = yield* Effect.forEach(state.slots, answer, { concurrency: resolved.concurrency })
          const end = yield* settleTurn(env, progress, slots)
          return end ?? (yield* runTurns(env, progress))
        })
        return finish(report, progress, body, runOptions)
      }))

  return { run, stream, resume }
}
