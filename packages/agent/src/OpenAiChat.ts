/**
 * An OpenAI-compatible Chat Completions provider for effect/ai's LanguageModel, over effect/http's
 * HttpClient (swap the HttpClient Layer to point it at a local server in tests).
 *
 *   OpenAiChat.layer("gpt-4.1", { baseUrl: "https://api.openai.com/v1", apiKey: Redacted.make(key) })
 */
import type { ConfigError } from "@interlock/core"
import { type Layer, Redacted } from "effect"
import type { LanguageModel, Model, Prompt, Response } from "effect/ai"
import type { HttpClient } from "effect/http"
import { FINISH, reader } from "./OpenAiChatStream.ts"
import {
  metadataOf,
  parseArguments,
  type ProviderConfig,
  providerLayer,
  textOf,
  toolResultText,
  usageOf,
  type WireFormat,
  withTools
} from "./ProviderHttp.ts"

/** Options of the OpenAI-compatible provider. */
export interface OpenAiChatConfig extends ProviderConfig {}

/** Converts effect/ai's prompt into Chat Completions messages. */
export const toMessages = (prompt: Prompt.Prompt): Array<Record<string, unknown>> => {
  const out: Array<Record<string, unknown>> = []
  for (const message of prompt.content) {
    switch (message.role) {
      case "system":
        out.push({ role: "system", content: message.content })
        break
      case "user":
        out.push({ role: "user", content: textOf(message.content) })
        break
      case "assistant": {
        const calls = message.content.flatMap((part) =>
          part.type === "tool-call"
            ? [{
              id: part.id,
              type: "function",
              function: { name: part.name, arguments: JSON.stringify(part.params ?? {}) }
            }]
            : []
        )
        const text = textOf(message.content)
        out.push({
          role: "assistant",
          content: text.length > 0 ? text : null,
          ...(calls.length > 0 ? { tool_calls: calls } : {})
        })
        break
      }
      case "tool":
        for (const part of message.content) {
          if (part.type === "tool-result") {
            out.push({ role: "tool", tool_call_id: part.id, content: toolResultText(part.result) })
          }
        }
        break
    }
  }
  return out
}

const toolChoiceOf = (choice: LanguageModel.ToolChoice<string>): unknown => {
  if (typeof choice === "string") return choice
  if ("tool" in choice) return { type: "function", function: { name: choice.tool } }
  return choice.mode ?? "auto"
}

/** The request body; with no tools, `tools` and `tool_choice` are left out entirely. */
export const requestBody = (model: string, options: LanguageModel.ProviderOptions): Record<string, unknown> =>
  withTools({ model, messages: toMessages(options.prompt) }, options, (name, description, parameters) => ({
    type: "function",
    function: { name, description, parameters }
  }), toolChoiceOf)

/** Converts a Chat Completions answer into effect/ai's encoded response parts. */
export const fromResponse = (json: unknown): Array<Response.PartEncoded> | undefined => {
  const body = json as { id?: unknown; model?: unknown; choices?: unknown; usage?: Record<string, unknown> } | null
  const choice = Array.isArray(body?.choices) ? (body.choices[0] as Record<string, unknown> | undefined) : undefined
  const message = choice?.message as { content?: unknown; tool_calls?: unknown } | undefined
  if (typeof message !== "object" || message === null) return undefined
  const parts: Array<Response.PartEncoded> = [metadataOf(body)]
  if (typeof message.content === "string" && message.content.length > 0) {
    parts.push({ type: "text", text: message.content })
  }
  if (Array.isArray(message.tool_calls)) {
    for (
      const call of message.tool_calls as Array<{ id?: unknown; function?: { name?: unknown; arguments?: unknown } }>
    ) {
      if (typeof call?.id !== "string" || typeof call.function?.name !== "string") return undefined
      parts.push({
        type: "tool-call",
        id: call.id,
        name: call.function.name,
        params: parseArguments(call.function.arguments)
      })
    }
  }
  const usage = body?.usage ?? {}
  parts.push({
    type: "finish",
    reason: FINISH[String(choice?.finish_reason)] ?? (Array.isArray(message.tool_calls) ? "tool-calls" : "unknown"),
    usage: usageOf(usage.prompt_tokens, usage.completion_tokens)
  })
  return parts
}

const wire: WireFormat = {
  module: "OpenAiChat",
  provider: "openai-compatible",
  path: "/chat/completions",
  headers: (
    config
  ): Record<
    string,
    string
  > => (config.apiKey === undefined ? {} : { authorization: `Bearer ${Redacted.value(config.apiKey)}` }),
  request: requestBody,
  response: fromResponse,
  stream: { body: { stream: true, stream_options: { include_usage: true } }, reader }
}

/**
 * The LanguageModel for `model`, with effect/ai's ModelName and ProviderName. Needs an HttpClient
 * (NodeHttpClient.layerUndici, FetchHttpClient.layer...). Fails with a ConfigError naming the bad option.
 */
export const layer = (
  model: string,
  config: OpenAiChatConfig
): Layer.Layer<
  LanguageModel.LanguageModel | Model.ModelName | Model.ProviderName,
  ConfigError,
  HttpClient.HttpClient
> => providerLayer(wire, model, config)
