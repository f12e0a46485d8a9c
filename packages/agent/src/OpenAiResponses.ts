/**
 * An OpenAI Responses API provider for effect/ai's LanguageModel (`POST {baseUrl}/responses`), streaming too
 * (OpenAiResponsesStream.ts). Each turn sends the whole transcript as `input` items: no stored response is needed.
 *   OpenAiResponses.layer("gpt-4.1", { baseUrl: "https://api.openai.com/v1", apiKey: Redacted.make(key) })
 */
import type { ConfigError } from "@interlock/core"
import { type Layer, Redacted } from "effect"
import type { LanguageModel, Model, Prompt, Response } from "effect/ai"
import type { HttpClient } from "effect/http"
import { finishOf, reader } from "./OpenAiResponsesStream.ts"
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

/** Options of the Responses provider. */
export interface OpenAiResponsesConfig extends ProviderConfig {}

/** Converts effect/ai's prompt into Responses `input` items (messages, function calls and their outputs). */
export const toInput = (prompt: Prompt.Prompt): Array<Record<string, unknown>> => {
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
        const text = textOf(message.content)
        if (text.length > 0) out.push({ role: "assistant", content: text })
        for (const part of message.content) {
          if (part.type === "tool-call") {
            out.push({
              type: "function_call",
              call_id: part.id,
              name: part.name,
              arguments: JSON.stringify(part.params ?? {})
            })
          }
        }
        break
      }
      case "tool":
        for (const part of message.content) {
          if (part.type === "tool-result") {
            out.push({ type: "function_call_output", call_id: part.id, output: toolResultText(part.result) })
          }
        }
        break
    }
  }
  return out
}

const toolChoiceOf = (choice: LanguageModel.ToolChoice<string>): unknown => {
  if (typeof choice === "string") return choice
  if ("tool" in choice) return { type: "function", name: choice.tool }
  return choice.mode ?? "auto"
}

/** The request body; with no tools, `tools` and `tool_choice` are left out entirely. */
export const requestBody = (model: string, options: LanguageModel.ProviderOptions): Record<string, unknown> =>
  withTools({ model, input: toInput(options.prompt) }, options, (name, description, parameters) => ({
    type: "function",
    name,
    description,
    parameters
  }), toolChoiceOf)

/** Converts a Responses answer into effect/ai's encoded response parts. */
export const fromResponse = (json: unknown): Array<Response.PartEncoded> | undefined => {
  const body = json as { output?: unknown; status?: unknown; usage?: Record<string, unknown> } | null
  if (body === null || typeof body !== "object" || !Array.isArray(body.output)) return undefined
  const parts: Array<Response.PartEncoded> = [metadataOf(body as { id?: unknown; model?: unknown })]
  let calls = 0
  for (const item of body.output as Array<Record<string, unknown>>) {
    if (item?.type === "message" && Array.isArray(item.content)) {
      for (const content of item.content as Array<Record<string, unknown>>) {
        if (content?.type === "output_text" && typeof content.text === "string" && content.text.length > 0) {
          parts.push({ type: "text", text: content.text })
        }
      }
    } else if (item?.type === "function_call") {
      if (typeof item.call_id !== "string" || typeof item.name !== "string") return undefined
      calls++
      parts.push({ type: "tool-call", id: item.call_id, name: item.name, params: parseArguments(item.arguments) })
    }
  }
  const usage = body.usage ?? {}
  parts.push({
    type: "finish",
    reason: finishOf(body, calls > 0),
    usage: usageOf(usage.input_tokens, usage.output_tokens)
  })
  return parts
}

const wire: WireFormat = {
  module: "OpenAiResponses",
  provider: "openai-responses",
  path: "/responses",
  headers: (config): Record<string, string> =>
    config.apiKey === undefined ? {} : { authorization: `Bearer ${Redacted.value(config.apiKey)}` },
  request: requestBody,
  response: fromResponse,
  stream: { body: { stream: true }, reader }
}

/** The LanguageModel for `model`, with effect/ai's ModelName and ProviderName. Needs an HttpClient. */
export const layer = (
  model: string,
  config: OpenAiResponsesConfig
): Layer.Layer<
  LanguageModel.LanguageModel | Model.ModelName | Model.ProviderName,
  ConfigError,
  HttpClient.HttpClient
> => providerLayer(wire, model, config)
