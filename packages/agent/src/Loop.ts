/**
 * The turn loop: [compaction] -> beforeModel -> model (with retries) -> afterModel -> the turn's
 * tool calls through core's ToolCalls -> next turn; with no tool call, the stop hooks decide
 * whether the run ends. The loop mutates a Progress so that a deadline or an interruption can
 * still report what was done.
 */
import { Effect } from "effect"
import { type LanguageModel, Prompt } from "effect/ai"
import { runEvent, STOP } from "./AgentHookRunner.ts"
import type { AgentTool } from "./Catalog.ts"
import { compactIfNeeded } from "./Compaction.ts"
import { callModel, type TurnAnswer } from "./ModelTurn.ts"
import { emitEvent, type End, guardEnd, hookEnv, type LoopEnv, notify, type Progress } from "./RunContext.ts"
import { RunState, SettledCall } from "./RunState.ts"
import { execTurn, type ModelCall, type Slot } from "./ToolExec.ts"

/** A user message with one text part. */
export const userText = (text: string) => Prompt.userMessage({ content: [Prompt.textPart({ text })] })

/** The tool-result message of a turn. */
export const toolMessage = (
  calls: ReadonlyArray<
    { readonly id: string; readonly name: string; readonly output: string; readonly isError: boolean }
  >
) =>
  Prompt.toolMessage({
    content: calls.map((call) =>
      Prompt.toolResultPart({
        id: call.id,
        name: call.name,
        isFailure: call.isError,
        result: call.output,
        providerExecuted: false
      })
    )
  })

/** The state of a run suspended on pending calls. */
export const suspendedState = (progress: Progress, slots: ReadonlyArray<Slot>): RunState =>
  new RunState({
    version: 1,
    messages: progress.messages,
    tools: progress.tools.map((tool) => tool.name),
    turns: progress.turns,
    inputTokens: progress.usage.inputTokens,
    outputTokens: progress.usage.outputTokens,
    toolCalls: progress.toolCalls,
    slots: slots.map((slot) =>
      slot._tag === "pending"
        ? slot.pending
        : new SettledCall({
          id: slot.call.id,
          name: slot.call.name,
          output: slot.call.output,
          isError: slot.call.isError
        })
    ),
    stopHookActive: progress.stopHookActive
  })

/** Records a turn's answers: settled ones join toolCalls; with any pending, the run suspends. */
export const settleTurn = (
  env: LoopEnv,
  progress: Progress,
  slots: ReadonlyArray<Slot>
): Effect.Effect<End | undefined> => {
  for (const slot of slots) if (slot._tag === "settled" && slot.recorded !== true) progress.toolCalls.push(slot.call)
  progress.calls.done.length = 0
  const pending = slots.filter((slot): slot is Extract<Slot, { _tag: "pending" }> => slot._tag === "pending")
  if (pending.length > 0) {
    const names = pending.map((slot) => slot.pending.name).join(", ")
    return Effect.as(notify(env, progress, "approval_pending", `approval needed for ${names}`), {
      status: "pending",
      state: suspendedState(progress, slots)
    })
  }
  progress.messages.push(toolMessage(slots.map((slot) => (slot as Extract<Slot, { _tag: "settled" }>).call)))
  return Effect.succeed(undefined)
}

const beforeModel = (env: LoopEnv, progress: Progress, turn: number) =>
  runEvent(hookEnv(env, progress), "beforeModel", {
    input: (s: { messages: ReadonlyArray<Prompt.Message>; tools: ReadonlyArray<AgentTool> }) => ({
      messages: s.messages,
      tools: s.tools,
      model: env.model,
      turn
    }),
    offered: (s) => s.tools,
    apply: (s, verdict) =>
      verdict._tag === "Rewrite"
        ? { messages: verdict.messages ?? s.messages, tools: verdict.tools ?? s.tools }
        : verdict._tag === "Continue"
        ? s
        : STOP
  }, { messages: progress.messages as ReadonlyArray<Prompt.Message>, tools: progress.tools })

const stopHooks = (env: LoopEnv, progress: Progress, text: string) =>
  runEvent(hookEnv(env, progress), env.stopEvent, {
    input: () => ({
      agent: env.agentName,
      text,
      messages: progress.messages,
      turn: progress.turns - 1,
      stopHookActive: progress.stopHookActive
    }),
    apply: (s, verdict) => (verdict._tag === "Block" ? STOP : s)
  }, undefined)

/** What follows a model answer: the stop hooks when it has no tool calls, else the turn's calls. */
const afterAnswer = (
  env: LoopEnv,
  progress: Progress,
  response: LanguageModel.GenerateTextResponse<any, any>
): Effect.Effect<End | undefined> => {
  progress.messages.push(...Prompt.fromResponseParts(response.content).content)
  const calls = response.toolCalls as ReadonlyArray<ModelCall>
  if (calls.length > 0) {
    const active = new Set(progress.tools.map((tool) => tool.name))
    return Effect.flatMap(
      execTurn(env.exec, active, calls, progress.turns - 1, progress.calls),
      (slots) => settleTurn(env, progress, slots)
    )
  }
  return Effect.map(stopHooks(env, progress, response.text), (stop): End | undefined => {
    if (stop._tag === "Failed") return guardEnd(env.stopEvent, stop)
    if (stop._tag === "Stopped" && stop.verdict._tag === "Block") {
      progress.messages.push(userText(stop.verdict.reason))
      progress.stopHookActive = true
      return undefined
    }
    progress.text = response.text
    return DONE
  })
}

const DONE: End = { status: "done" }

/** The turn's end event: the finish reason, or the chunk hook that stopped it. */
const turnEnd = (progress: Progress, turn: number, answer: TurnAnswer) =>
  emitEvent(progress, () => ({
    _tag: "TurnEnd",
    turn,
    finish: answer.stoppedBy === undefined ? answer.response.finishReason : "stopped",
    stoppedBy: answer.stoppedBy
  }))

/** The model request of a turn and what follows it. */
const modelStep = (env: LoopEnv, progress: Progress): Effect.Effect<End | undefined> => {
  const turn = progress.turns
  const answered = Effect.flatMap(callModel(env, progress), (answer): Effect.Effect<End | undefined> => {
    if (answer._tag === "Failure") return Effect.succeed<End>({ status: "error", error: answer.failure })
    const turnAnswer = answer.success.value
    if (turnAnswer.failed !== undefined) return Effect.succeed(turnAnswer.failed)
    const response = turnAnswer.response
    const observed = runEvent(hookEnv(env, progress), "afterModel", {
      input: () => ({ response, model: env.model, turn }),
      apply: (s) => s
    }, undefined)
    const after = Effect.flatMap(observed, () => afterAnswer(env, progress, response))
    return progress.emit === undefined ? after : Effect.tap(after, () => turnEnd(progress, turn, turnAnswer))
  })
  return progress.emit === undefined
    ? answered
    : Effect.andThen(progress.emit({ _tag: "TurnStart", turn }), answered)
}

/** One turn. Returns how the run ended, or undefined to go on. */
const turn = (env: LoopEnv, progress: Progress): Effect.Effect<End | undefined> =>
  Effect.flatMap(compactIfNeeded(env, progress), (compacted) => {
    if (compacted !== undefined) return Effect.succeed(compacted)
    return Effect.flatMap(beforeModel(env, progress, progress.turns), (before) => {
      const blocked = guardEnd("beforeModel", before)
      if (blocked !== undefined) return Effect.succeed(blocked)
      if (before._tag === "Done") {
        // A rewrite replaces the transcript; the loop keeps appending to its own copy.
        if (before.state.messages !== progress.messages) progress.messages = [...before.state.messages]
        progress.tools = before.state.tools
      }
      return modelStep(env, progress)
    })
  })

/** Runs turns until the run ends or maxTurns model requests were made. */
export const runTurns = (env: LoopEnv, progress: Progress): Effect.Effect<End> => {
  if (progress.turns >= env.maxTurns) {
    const limit: End = { status: "incomplete", limit: { kind: "maxTurns", value: env.maxTurns } }
    return Effect.as(notify(env, progress, "turn_limit", `the run reached maxTurns (${env.maxTurns})`), limit)
  }
  return Effect.flatMap(
    turn(env, progress),
    (end) => (end !== undefined ? Effect.succeed(end) : runTurns(env, progress))
  )
}
