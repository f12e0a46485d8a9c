/**
 * The Anthropic Messages stream (`stream: true`): message_start, content_block_start / _delta
 * (text_delta, input_json_delta) / _stop, message_delta (stop reason, usage), message_stop, ping
 * and error events, read into effect/ai's stream parts. A tool_use block becomes a tool call when
 * its block stops, with the input its deltas spelled.
 */
import type { AiError, Response } from "effect/ai"
import type { Sse } from "effect/encoding"
import { metadataOf, parseArguments, usageOf } from "./ProviderHttp.ts"
import { eventJson, offFormat, type SseReader, streamFailure } from "./ProviderStream.ts"

/** Messages stop reasons as effect/ai's finish reasons. */
export const FINISH: Record<string, Response.FinishReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  tool_use: "tool-calls",
  max_tokens: "length",
  pause_turn: "pause",
  refusal: "content-filter"
}

type Part = Response.StreamPartEncoded

interface Block {
  readonly type: "text" | "tool_use" | "other"
  readonly id: string
  readonly name: string
  input: string
}

/** A reader of one Messages stream. */
export const reader = (): SseReader => {
  const blocks = new Map<number, Block>()
  let done = false
  let reason: string | undefined
  let inputTokens: unknown
  let outputTokens: unknown
  const finish = (): Part => ({
    type: "finish",
    reason: FINISH[String(reason)] ?? "unknown",
    usage: usageOf(inputTokens, outputTokens)
  })
  const event = (sse: Sse.Event): ReadonlyArray<Part> | AiError.AiErrorReason => {
    const data = eventJson(sse)
    if (data === undefined) return offFormat()
    switch (data.type) {
      case "message_start": {
        const message = data.message as { id?: unknown; model?: unknown; usage?: Record<string, unknown> } | undefined
        inputTokens = message?.usage?.input_tokens
        outputTokens = message?.usage?.output_tokens
        return [metadataOf(message) as Part]
      }
      case "content_block_start": {
        const index = data.index
        const block = data.content_block as Record<string, unknown> | undefined
        if (typeof index !== "number" || typeof block !== "object" || block === null) return offFormat()
        if (block.type === "text") {
          blocks.set(index, { type: "text", id: String(index), name: "", input: "" })
          const text = typeof block.text === "string" && block.text.length > 0
            ? [{ type: "text-delta", id: String(index), delta: block.text } as Part]
            : []
          return [{ type: "text-start", id: String(index) }, ...text]
        }
        if (block.type === "tool_use") {
          if (typeof block.id !== "string" || typeof block.name !== "string") return offFormat()
          blocks.set(index, { type: "tool_use", id: block.id, name: block.name, input: "" })
          return [{ type: "tool-params-start", id: block.id, name: block.name }]
        }
        blocks.set(index, { type: "other", id: String(index), name: "", input: "" })
        return []
      }
      case "content_block_delta": {
        const block = typeof data.index === "number" ? blocks.get(data.index) : undefined
        const delta = data.delta as Record<string, unknown> | undefined
        if (block === undefined || typeof delta !== "object" || delta === null) return offFormat()
        if (delta.type === "text_delta" && block.type === "text" && typeof delta.text === "string") {
          return [{ type: "text-delta", id: block.id, delta: delta.text }]
        }
        if (delta.type === "input_json_delta" && block.type === "tool_use" && typeof delta.partial_json === "string") {
          block.input += delta.partial_json
          return [{ type: "tool-params-delta", id: block.id, delta: delta.partial_json }]
        }
        // thinking_delta, signature_delta, citations: nothing the loop keeps.
        return []
      }
      case "content_block_stop": {
        const block = typeof data.index === "number" ? blocks.get(data.index) : undefined
        if (block === undefined) return offFormat()
        if (block.type === "text") return [{ type: "text-end", id: block.id }]
        if (block.type === "tool_use") {
          return [{ type: "tool-params-end", id: block.id }, {
            type: "tool-call",
            id: block.id,
            name: block.name,
            params: parseArguments(block.input)
          }]
        }
        return []
      }
      case "message_delta": {
        const delta = data.delta as { stop_reason?: unknown } | undefined
        const usage = data.usage as Record<string, unknown> | undefined
        if (typeof delta?.stop_reason === "string") reason = delta.stop_reason
        if (usage?.output_tokens !== undefined) outputTokens = usage.output_tokens
        if (usage?.input_tokens !== undefined) inputTokens = usage.input_tokens
        return []
      }
      case "message_stop":
        done = true
        return [finish()]
      case "ping":
        return []
      case "error":
        return streamFailure((data.error as { type?: unknown } | undefined)?.type)
      default:
        return []
    }
  }
  return {
    event,
    done: () => done,
    // A body that ends after the stop reason but without message_stop still said everything.
    end: () => (reason === undefined ? undefined : [finish()])
  }
}
