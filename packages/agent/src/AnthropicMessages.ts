/**
 * An Anthropic Messages provider for effect/ai's LanguageModel, over effect/http's HttpClient.
 *
 *   AnthropicMessages.layer("claude-sonnet-4-5", { baseUrl: "https://api.anthropic.com/v1", apiKey: Redacted.make(key)
 *   })
 */
import type { ConfigError } from "@interlock/core"
import { type Layer, Redacted } from "effect"
import type { LanguageModel, Model, Prompt, Response } from "effect/ai"
import type { HttpClient } from "effect/http"
import { FINISH, reader } from "./AnthropicStream.ts"
import {
  metadataOf,
  type ProviderConfig,
  providerLayer,
  textOf,
  toolResultText,
  usageOf,
  withTools
} from "./ProviderHttp.ts"

/** Options of the Anthropic provider. */
export interface AnthropicConfig extends ProviderConfig {
  /** The `anthropic-version` header; default "2023-06-01". */
  readonly version?: string | undefined
  /** `max_tokens` of every request; default 4096. */
  readonly maxTokens?: number | undefined
}

type Block = Record<string, unknown>

/** Converts effect/ai's prompt into Messages `system` and `messages` (consecutive same-role turns merged). */
export const toMessages = (
  prompt: Prompt.Prompt
): { system: string | undefined; messages: Array<{ role: string; content: Array<Block> }> } => {
  const system: Array<string> = []
  const messages: Array<{ role: string; content: Array<Block> }> = []
  const push = (role: string, content: Array<Block>) => {
    if (content.length === 0) return
    const last = messages[messages.length - 1]
    if (last !== undefined && last.role === role) last.content.push(...content)
    else messages.push({ role, content })
  }
  for (const message of prompt.content) {
    switch (message.role) {
      case "system":
        system.push(message.content)
        break
      case "user":
        push("user", [{ type: "text", text: textOf(message.content) }])
        break
      case "assistant":
        push(
          "assistant",
          message.content.flatMap((part): Array<Block> =>
            part.type === "text"
              ? [{ type: "text", text: part.text }]
              : part.type === "tool-call"
              ? [{ type: "tool_use", id: part.id, name: part.name, input: part.params ?? {} }]
              : []
          )
        )
        break
      case "tool":
        push(
          "user",
          message.content.flatMap((part): Array<Block> =>
            part.type === "tool-result"
              ? [{
                type: "tool_result",
                tool_use_id: part.id,
                content: toolResultText(part.result),
                is_error: part.isFailure
              }]
              : []
          )
        )
        break
    }
  }
  return { system: system.length > 0 ? system.join("\n\n") : undefined, messages }
}

const toolChoiceOf = (choice: LanguageModel.ToolChoice<string>): Block => {
  if (choice === "required") return { type: "any" }
  if (choice === "auto" || choice === "none") return { type: choice }
  if ("tool" in choice) return { type: "tool", name: choice.tool }
  return { type: choice.mode === "required" ? "any" : "auto" }
}

/** The request body; with no tools, `tools` and `tool_choice` are left out entirely. */
export const requestBody = (
  model: string,
  maxTokens: number,
  options: LanguageModel.ProviderOptions
): Record<string, unknown> => {
  const { system, messages } = toMessages(options.prompt)
  const body: Record<string, unknown> = { model, max_tokens: maxTokens, messages }
  if (system !== undefined) body.system = system
  return withTools(
    body,
    options,
    (name, description, input_schema) => ({ name, description, input_schema }),
    toolChoiceOf
  )
}

/** Converts a Messages answer into effect/ai's encoded response parts. */
export const fromResponse = (json: unknown): Array<Response.PartEncoded> | undefined => {
  const body = json as {
    id?: unknown
    model?: unknown
    content?: unknown
    stop_reason?: unknown
    usage?: Record<string, unknown>
  } | null
  if (body === null || typeof body !== "object" || !Array.isArray(body.content)) return undefined
  const parts: Array<Response.PartEncoded> = [metadataOf(body)]
  for (const block of body.content as Array<Record<string, unknown>>) {
    if (block?.type === "text" && typeof block.text === "string") parts.push({ type: "text", text: block.text })
    else if (block?.type === "tool_use") {
      if (typeof block.id !== "string" || typeof block.name !== "string") return undefined
      parts.push({ type: "tool-call", id: block.id, name: block.name, params: block.input ?? {} })
    }
  }
  const usage = body.usage ?? {}
  parts.push({
    type: "finish",
    reason: FINISH[String(body.stop_reason)] ?? "unknown",
    usage: usageOf(usage.input_tokens, usage.output_tokens)
  })
  return parts
}

/** The LanguageModel for `model`, with ModelName and ProviderName. Needs an HttpClient. */
export const layer = (
  model: string,
  config: AnthropicConfig
): Layer.Layer<
  LanguageModel.LanguageModel | Model.ModelName | Model.ProviderName,
  ConfigError,
  HttpClient.HttpClient
> =>
  providerLayer(
    {
      module: "AnthropicMessages",
      provider: "anthropic",
      path: "/messages",
      headers: (c) => ({
        "anthropic-version": config.version ?? "2023-06-01",
        ...(c.apiKey === undefined ? {} : { "x-api-key": Redacted.value(c.apiKey) })
      }),
      request: (m, options) => requestBody(m, config.maxTokens ?? 4096, options),
      response: fromResponse,
      stream: { body: { stream: true }, reader }
    },
    model,
    config
  )
