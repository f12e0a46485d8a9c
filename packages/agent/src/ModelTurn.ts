/**
 * The model request of a turn. `run` asks for the whole answer (generateText), a streamed run for a
 * stream (streamText) whose deltas it emits as they come; one reader serves both: text goes through
 * the afterModelChunk gate, tool calls are collected and shown (never run here), and the answer the
 * loop keeps is rebuilt from the text that was released.
 */
import { Effect, type Result, Stream } from "effect"
import { AiError, LanguageModel, Prompt, Response } from "effect/ai"
import type { ModelFailed } from "./AgentErrors.ts"
import { emit } from "./Metrics.ts"
import { withRetries } from "./Resilience.ts"
import type { End, LoopEnv, Progress } from "./RunContext.ts"
import { type GateStep, openGate, passDelta, type TextGate } from "./TextGate.ts"
import { isJsonLike } from "./ToolExec.ts"

/** A turn's answer, after the chunk hooks. */
export interface TurnAnswer {
  readonly response: LanguageModel.GenerateTextResponse<any, any>
  /** The afterModelChunk hook that stopped the turn; the turn's tool calls were then dropped. */
  readonly stoppedBy?: { readonly hookId: string; readonly reason: string } | undefined
  /** How the run ends, when an afterModelChunk hook failed (closed). */
  readonly failed?: End | undefined
}

/** What reading one answer has gathered. */
interface Reader {
  readonly gate: TextGate
  readonly content: Array<Response.AnyPart>
  /** The released text of the text part being read. */
  text: string
  /** True once the answer showed anything: a request is no longer retried then. */
  received: boolean
  stoppedBy: TurnAnswer["stoppedBy"]
  failed: End | undefined
}

const GO_ON = Effect.succeed(true)
const STOP = Effect.succeed(false)

// Stream parts that carry nothing the loop keeps (their content arrives in other parts).
const SKIPPED = new Set(["text-start", "reasoning-start", "reasoning-delta", "reasoning-end", "tool-params-end"])

/** Ends the text part being read: its released text joins the answer. */
const closeText = (reader: Reader): void => {
  if (reader.text.length === 0) return
  reader.content.push(Response.makePart("text", { text: reader.text }))
  reader.text = ""
}

/** Applies a gate step: released text is emitted and kept; a stop or a failure ends the reading (false). */
const applyStep = (progress: Progress, reader: Reader, step: GateStep): Effect.Effect<boolean> => {
  switch (step._tag) {
    case "Release": {
      if (step.text.length === 0) return GO_ON
      reader.text += step.text
      const turn = reader.gate.turn
      return progress.emit === undefined
        ? GO_ON
        : Effect.as(progress.emit({ _tag: "TextDelta", turn, text: step.text }), true)
    }
    case "Held":
      return GO_ON
    case "Stopped":
      reader.stoppedBy = { hookId: step.hookId, reason: step.reason }
      return STOP
    case "Failed":
      reader.failed = step.end
      return STOP
  }
}

const gated = (env: LoopEnv, progress: Progress, reader: Reader, delta: string, final: boolean) => {
  const step = passDelta(env, progress, reader.gate, delta, final)
  return Effect.isEffect(step)
    ? Effect.flatMap(step, (s) => applyStep(progress, reader, s))
    : applyStep(progress, reader, step)
}

/** Ends the text being read: what is held back goes through the gate once more, as its end. */
const endText = (env: LoopEnv, progress: Progress, reader: Reader): Effect.Effect<boolean> => {
  if (reader.gate.pending.length === 0) {
    closeText(reader)
    return GO_ON
  }
  return Effect.map(gated(env, progress, reader, "", true), (go) => {
    if (go) closeText(reader)
    return go
  })
}

/** Ends the text, then keeps `part` (a tool call, the finish) after it. */
const afterText = (
  env: LoopEnv,
  progress: Progress,
  reader: Reader,
  part: Response.AnyPart,
  then?: Effect.Effect<void>
) =>
  Effect.flatMap(endText(env, progress, reader), (go) => {
    if (!go) return STOP
    reader.content.push(part)
    return then === undefined ? GO_ON : Effect.as(then, true)
  })

const streamError = AiError.make({
  module: "Agent",
  method: "streamText",
  reason: new AiError.UnknownError({ description: "the model's stream reported an error" })
})

/** Reads one part of an answer (whole or streamed). False stops the reading. */
const readPart = (
  env: LoopEnv,
  progress: Progress,
  reader: Reader,
  part: Response.AnyPart
): Effect.Effect<boolean, AiError.AiError> => {
  const turn = reader.gate.turn
  const out = progress.emit
  if (part.type !== "response-metadata") reader.received = true
  switch (part.type) {
    case "text":
      if (part.text.length === 0) return GO_ON
      return Effect.map(gated(env, progress, reader, part.text, true), (go) => {
        if (go) closeText(reader)
        return go
      })
    case "text-delta":
      return gated(env, progress, reader, part.delta, false)
    case "text-end":
      return endText(env, progress, reader)
    case "tool-params-start":
      return out === undefined
        ? GO_ON
        : Effect.as(out({ _tag: "ToolInputStart", turn, id: part.id, name: part.name }), true)
    case "tool-params-delta":
      return out === undefined
        ? GO_ON
        : Effect.as(out({ _tag: "ToolInputDelta", turn, id: part.id, delta: part.delta }), true)
    case "tool-call": {
      const args = isJsonLike(part.params) ? part.params : null
      return afterText(
        env,
        progress,
        reader,
        part,
        out === undefined ? undefined : out({ _tag: "ToolCall", turn, id: part.id, name: part.name, args })
      )
    }
    case "finish":
      return afterText(env, progress, reader, part)
    case "error":
      return Effect.fail(streamError)
    default:
      if (!SKIPPED.has(part.type)) reader.content.push(part)
      return GO_ON
  }
}

const newReader = (turn: number): Reader => ({
  gate: openGate(turn),
  content: [],
  text: "",
  received: false,
  stoppedBy: undefined,
  failed: undefined
})

/** The answer a reading came to: a stopped turn keeps its released text and drops its tool calls. */
const answerOf = (env: LoopEnv, progress: Progress, reader: Reader): Effect.Effect<TurnAnswer> => {
  const build = (): TurnAnswer => {
    // A stopped turn keeps the text it released before the stop.
    closeText(reader)
    const content = reader.stoppedBy === undefined
      ? reader.content
      : reader.content.filter((part) => part.type !== "tool-call")
    return {
      response: new LanguageModel.GenerateTextResponse(content as Array<Response.Part<any>>),
      stoppedBy: reader.stoppedBy,
      failed: reader.failed
    }
  }
  if (reader.stoppedBy !== undefined || reader.failed !== undefined) return Effect.sync(build)
  return Effect.map(endText(env, progress, reader), build)
}

const readAll = (env: LoopEnv, progress: Progress, reader: Reader, parts: ReadonlyArray<Response.AnyPart>) =>
  Effect.gen(function*() {
    for (const part of parts) if (!(yield* readPart(env, progress, reader, part))) break
    return yield* answerOf(env, progress, reader)
  })

const optionsOf = (env: LoopEnv, progress: Progress) => ({
  prompt: Prompt.fromMessages(progress.messages),
  toolkit: env.exec.catalog.toolkit(progress.tools),
  disableToolCallResolution: true as const,
  toolCallValidation: "deferred" as const
})

/** The whole answer; read through the gate only when a chunk hook or a consumer needs it. */
const wholeAnswer = (env: LoopEnv, progress: Progress, turn: number): Effect.Effect<TurnAnswer, AiError.AiError> =>
  Effect.flatMap(
    // The toolkit's handlers would need unknown services, but with disableToolCallResolution none runs.
    env.lm.generateText(optionsOf(env, progress)) as Effect.Effect<
      LanguageModel.GenerateTextResponse<any, any>,
      AiError.AiError
    >,
    (response) =>
      env.hooks.afterModelChunk.length === 0 && progress.emit === undefined
        ? Effect.succeed({ response })
        : readAll(env, progress, newReader(turn), response.content)
  )

/** The streamed answer, read as it comes; stopping the reading closes the model's stream (and its request). */
const streamedAnswer = (env: LoopEnv, progress: Progress, reader: Reader): Effect.Effect<TurnAnswer, AiError.AiError> =>
  Effect.suspend(() => {
    const parts = env.lm.streamText(optionsOf(env, progress)) as Stream.Stream<Response.AnyPart, AiError.AiError>
    return Effect.andThen(
      Stream.runForEachWhile(parts, (part) => readPart(env, progress, reader, part)),
      Effect.suspend(() => answerOf(env, progress, reader))
    )
  })

const usageOf = (response: LanguageModel.GenerateTextResponse<any, any>) => {
  const usage = response.usage
  const inputTokens = usage.inputTokens.total ?? 0
  const outputTokens = usage.outputTokens.total ?? 0
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens }
}

/**
 * The model request of a turn, with retries (a streamed answer is retried only while it has shown
 * nothing), its llm metric, and the turn and token counts on the progress.
 */
export const callModel = (
  env: LoopEnv,
  progress: Progress
): Effect.Effect<Result.Result<{ readonly value: TurnAnswer; readonly attempts: number }, ModelFailed>> =>
  Effect.clockWith((clock) => {
    const turn = progress.turns
    const start = clock.currentTimeMillisUnsafe()
    let reader: Reader | undefined
    const request = progress.emit === undefined
      ? withRetries(wholeAnswer(env, progress, turn), env.retry)
      : withRetries(
        Effect.suspend(() => {
          reader = newReader(turn)
          return streamedAnswer(env, progress, reader)
        }),
        env.retry,
        () => reader === undefined || !reader.received
      )
    return Effect.map(Effect.result(request), (answer) => {
      const durationMs = clock.currentTimeMillisUnsafe() - start
      progress.turns++
      const usage = answer._tag === "Failure"
        ? { inputTokens: 0, outputTokens: 0, totalTokens: 0 }
        : usageOf(answer.success.value.response)
      progress.usage.inputTokens += usage.inputTokens
      progress.usage.outputTokens += usage.outputTokens
      emit(env.metrics, {
        type: "llm",
        model: env.model,
        turn,
        status: answer._tag === "Failure" ? "error" : "ok",
        attempts: answer._tag === "Failure" ? answer.failure.attempts : answer.success.attempts,
        durationMs,
        ...usage
      })
      return answer
    })
  })
