/**
 * `interlockModelMiddleware(options)`: a Vercel AI SDK `LanguageModelMiddleware` that runs Interlock's model-level
 * hooks on every model call of `generateText` and `streamText`: beforeModel on the prompt and tools, afterModelChunk on
 * each text delta before the caller sees it (on `generateText`, each text once, whole), afterModel on the answer.
 */
import type { LanguageModelMiddleware } from "ai"
import type { Duration } from "effect"
import { type AfterModelChunkInput, ChunkGate, type GateStep } from "../internal/ChunkGate.ts"
import { afterModel, beforeModel, type RequestView } from "../internal/ModelChains.ts"
import { hookFailed } from "../internal/ModelErrors.ts"
import { compileModelHooks, type ModelHookEntry, type ModelHooks } from "../internal/ModelHooks.ts"
import type * as ModelVerdict from "../internal/ModelVerdict.ts"

type Middleware = Required<Pick<LanguageModelMiddleware, "transformParams" | "wrapGenerate" | "wrapStream">>
type CallOptions = Parameters<Middleware["transformParams"]>[0]["params"]
type Generated = Awaited<ReturnType<Middleware["wrapGenerate"]>>
type Part = Generated["content"][number]
type StreamPart = Awaited<ReturnType<Middleware["wrapStream"]>>["stream"] extends ReadableStream<infer P> ? P : never

/** beforeModel's input: the prompt as the provider gets it, the names of the tools offered, the model's id. */
export interface BeforeModelInput {
  readonly messages: CallOptions["prompt"]
  readonly tools: ReadonlyArray<string>
  readonly model: string
}

/** afterModel's input: the answer's content (after afterModelChunk), its finish reason and usage, the model's id. */
export interface AfterModelInput {
  readonly content: ReadonlyArray<Part>
  readonly finishReason: Generated["finishReason"]
  readonly usage: Generated["usage"] | undefined
  readonly model: string
}

/** The middleware's hooks, per event. */
export interface ModelHooksConfig {
  readonly beforeModel?: ReadonlyArray<
    ModelHookEntry<
      BeforeModelInput,
      ModelVerdict.Continue | ModelVerdict.Rewrite | ModelVerdict.Deny
    >
  >
  readonly afterModel?: ReadonlyArray<ModelHookEntry<AfterModelInput, ModelVerdict.Continue>>
  readonly afterModelChunk?: ReadonlyArray<
    ModelHookEntry<
      AfterModelChunkInput,
      ModelVerdict.Continue | ModelVerdict.Replace | ModelVerdict.Hold | ModelVerdict.Block
    >
  >
}

/** Options of {@link interlockModelMiddleware}. */
export interface ModelMiddlewareOptions {
  readonly hooks: ModelHooksConfig
  /** The deadline of a hook without its own; default 5 s. */
  readonly hookTimeout?: Duration.Input
}

const ROLES = new Set(["system", "user", "assistant", "tool"])

/** A prompt message as the provider spec has them: a role and its content. */
const isMessage = (value: unknown): boolean =>
  typeof value === "object" && value !== null && ROLES.has((value as { role?: unknown }).role as string) &&
  "content" in value

const toolNames = (params: CallOptions): Array<string> => (params.tools ?? []).map((tool) => tool.name)

/** Throws what a chain's failure or a gate's is: fail closed. */
const failed = (event: string, end: Parameters<typeof hookFailed>[1]): never => {
  throw hookFailed(event, end)
}

/** Where the provider spec's call options keep their prompt and tools. */
const VIEW: RequestView<CallOptions> = {
  messages: (params) => params.prompt,
  tools: toolNames,
  isMessage,
  rewrite: (params, messages, keep) => ({
    ...params,
    ...(messages === undefined ? {} : { prompt: messages as CallOptions["prompt"] }),
    ...(keep === undefined ? {} : { tools: (params.tools ?? []).filter((tool) => keep.includes(tool.name)) })
  })
}

/** The finish an answer stopped by afterModelChunk ends with: content-filter, naming the hook and its reason. */
const blockedFinish = (step: Extract<GateStep, { _tag: "Stopped" }>, raw: string | undefined) => ({
  finishReason: { unified: "content-filter" as const, raw },
  providerMetadata: { interlock: { blockedBy: step.hookId, reason: step.reason } }
})

/**
 * `generateText`: each text part goes through the gate whole; a Block drops the rest of the answer's text and calls.
 */
const gateGenerated = async (hooks: ModelHooks, result: Generated, model: string): Promise<Generated> => {
  if (hooks.afterModelChunk.length === 0) return result
  const content: Array<Part> = []
  for (const part of result.content) {
    if (part.type !== "text") {
      content.push(part)
      continue
    }
    const step = await new ChunkGate(hooks, model).push(part.text, true)
    if (step._tag === "Failed") return failed("afterModelChunk", step)
    if (step._tag === "Stopped") {
      const kept = content.filter((p) => p.type !== "tool-call")
      return { ...result, content: kept, ...blockedFinish(step, result.finishReason.raw) }
    }
    if (step._tag === "Release") content.push({ ...part, text: step.text })
  }
  return { ...result, content }
}

/**
 * `streamText`: every text delta goes through its text's gate; a Block ends the text and drops the answer's calls.
 * With chunk hooks, tool calls are held until the answer finishes, so that a Block later in it still drops them.
 */
const gateStream = (hooks: ModelHooks, model: string): TransformStream<StreamPart, StreamPart> => {
  const gates = new Map<string, ChunkGate>()
  // What afterModel is given, kept only for its hooks.
  const content: Array<Part> = []
  const observed = hooks.afterModel.length > 0
  const calls: Array<StreamPart> = []
  const holdCalls = hooks.afterModelChunk.length > 0
  let stopped: Extract<GateStep, { _tag: "Stopped" }> | undefined
  const pass = async (id: string, delta: string, final: boolean, out: TransformStreamDefaultController<StreamPart>) => {
    const gate = gates.get(id) ?? new ChunkGate(hooks, model)
    gates.set(id, gate)
    const step = await gate.push(delta, final)
    if (step._tag === "Failed") return failed("afterModelChunk", step)
    if (step._tag === "Stopped") {
      stopped = step
      out.enqueue({ type: "text-end", id })
    } else if (step._tag === "Release" && step.text.length > 0) {
      out.enqueue({ type: "text-delta", id, delta: step.text })
      if (observed) content.push({ type: "text", text: step.text })
    }
  }
  return new TransformStream<StreamPart, StreamPart>({
    transform: async (part, out) => {
      if (part.type === "finish") {
        const finish = stopped === undefined ? part : { ...part, ...blockedFinish(stopped, part.finishReason.raw) }
        if (stopped === undefined) { for (const call of calls) out.enqueue(call) }
        const answer: AfterModelInput = { content, finishReason: finish.finishReason, usage: part.usage, model }
        await afterModel(hooks, answer)
        return out.enqueue(finish)
      }
      if (stopped !== undefined) {
        if (part.type.startsWith("text-") || part.type.startsWith("tool-")) return
        return out.enqueue(part)
      }
      if (part.type === "text-delta") return pass(part.id, part.delta, false, out)
      if (part.type === "text-end") await pass(part.id, "", true, out)
      if (stopped !== undefined) return
      if (part.type !== "tool-call") return out.enqueue(part)
      if (observed) content.push(part)
      if (holdCalls) calls.push(part)
      else out.enqueue(part)
    }
  })
}

/**
 * The middleware, for `wrapLanguageModel({ model, middleware })`. A beforeModel Deny rejects the call with
 * {@link ModelDenied}; a failing hook (raise, timeout, an answer outside its event's verdicts) with a
 * ModelHookFailed, and on a stream, errors it: nothing that was held back is shown. Throws a ConfigError when
 * the hooks are malformed.
 */
export const interlockModelMiddleware = (options: ModelMiddlewareOptions): LanguageModelMiddleware => {
  const hooks = compileModelHooks(options.hooks, options.hookTimeout)
  return {
    transformParams: ({ params, model }) => beforeModel(hooks, params, model.modelId, VIEW),
    wrapGenerate: async ({ doGenerate, model }) => {
      const result = await gateGenerated(hooks, await doGenerate(), model.modelId)
      const { content, finishReason, usage } = result
      const answer: AfterModelInput = { content, finishReason, usage, model: model.modelId }
      await afterModel(hooks, answer)
      return result
    },
    wrapStream: async ({ doStream, model }) => {
      // With no hook on the answer, the stream is the provider's own.
      if (hooks.afterModelChunk.length === 0 && hooks.afterModel.length === 0) return doStream()
      const { stream, ...rest } = await doStream()
      return { ...rest, stream: stream.pipeThrough(gateStream(hooks, model.modelId)) }
    }
  }
}
