/**
 * The LangChain middleware's `wrapModelCall`: Interlock's model-level hooks around every model call of the agent.
 * beforeModel on the messages and tools, afterModelChunk on the answer's text (once, whole: the middleware gets the
 * answer when the model is done), afterModel on the answer.
 */
import { AIMessage, BaseMessage } from "@langchain/core/messages"
import type { AgentMiddleware } from "langchain"
import { type AfterModelChunkInput, ChunkGate } from "../internal/ChunkGate.ts"
import { afterModel, beforeModel, type RequestView } from "../internal/ModelChains.ts"
import { hookFailed } from "../internal/ModelErrors.ts"
import type { ModelHookEntry, ModelHooks } from "../internal/ModelHooks.ts"
import type * as ModelVerdict from "../internal/ModelVerdict.ts"

type WrapModelCall = NonNullable<AgentMiddleware["wrapModelCall"]>
type Request = Parameters<WrapModelCall>[0]

/** beforeModel's input: the messages the model is about to get, the names of the tools offered, the model's name. */
export interface BeforeModelInput {
  readonly messages: ReadonlyArray<BaseMessage>
  readonly tools: ReadonlyArray<string>
  readonly model: string
}

/** afterModel's input: the model's answer (after afterModelChunk) and the model's name. */
export interface AfterModelInput {
  readonly message: AIMessage
  readonly model: string
}

/** The middleware's model-level hooks, per event. */
export interface ModelHooksConfig {
  readonly beforeModel?: ReadonlyArray<
    ModelHookEntry<BeforeModelInput, ModelVerdict.Continue | ModelVerdict.Rewrite | ModelVerdict.Deny>
  >
  readonly afterModel?: ReadonlyArray<ModelHookEntry<AfterModelInput, ModelVerdict.Continue>>
  readonly afterModelChunk?: ReadonlyArray<
    ModelHookEntry<AfterModelChunkInput, ModelVerdict.Continue | ModelVerdict.Replace | ModelVerdict.Block>
  >
}

const nameOf = (tool: unknown): string => String((tool as { readonly name?: unknown }).name)

const modelName = (model: Request["model"]): string => {
  const named = model as { readonly model?: unknown; readonly getName?: () => string }
  return typeof named.model === "string" ? named.model : named.getName?.() ?? "unknown"
}

/** Where LangChain's model request keeps its messages and tools. */
const VIEW: RequestView<Request> = {
  messages: (request) => request.messages,
  tools: (request) => request.tools.map(nameOf),
  isMessage: (value) => BaseMessage.isInstance(value),
  rewrite: (request, messages, keep) => ({
    ...request,
    ...(messages === undefined ? {} : { messages: [...messages] as Array<BaseMessage> }),
    ...(keep === undefined ? {} : { tools: request.tools.filter((tool) => keep.includes(nameOf(tool))) })
  })
}

/** The answer's text through the gate: unchanged, replaced, or (Block) emptied with its tool calls dropped. */
const gateAnswer = async (hooks: ModelHooks, answer: AIMessage, model: string): Promise<AIMessage> => {
  if (hooks.afterModelChunk.length === 0) return answer
  const step = await new ChunkGate(hooks, model).push(answer.text, true)
  if (step._tag === "Failed") throw hookFailed("afterModelChunk", step)
  if (step._tag === "Release" && step.text === answer.text) return answer
  const blocked = step._tag === "Stopped"
  return new AIMessage({
    content: step._tag === "Release" ? step.text : "",
    ...(answer.id === undefined ? {} : { id: answer.id }),
    tool_calls: blocked ? [] : answer.tool_calls ?? [],
    response_metadata: {
      ...answer.response_metadata,
      ...(blocked ? { interlock: { blockedBy: step.hookId, reason: step.reason } } : {})
    },
    ...(answer.usage_metadata === undefined ? {} : { usage_metadata: answer.usage_metadata })
  })
}

/** `wrapModelCall` for `hooks`. A Deny or a failing hook rejects the model call, so the agent's run rejects. */
export const wrapModelCall = (hooks: ModelHooks): WrapModelCall => async (request, handler) => {
  const model = modelName(request.model)
  const answer = await handler(await beforeModel(hooks, request, model, VIEW))
  if (!AIMessage.isInstance(answer)) return answer
  const message = await gateAnswer(hooks, answer, model)
  const input: AfterModelInput = { message, model }
  await afterModel(hooks, input)
  return message
}
