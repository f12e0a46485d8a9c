/**
 * The Responses API stream (`stream: true`): response.created, output_item.added / .done (messages
 * and function calls), output_text.delta, function_call_arguments.delta / .done, and a terminal
 * response.completed, .incomplete or .failed (there is no [DONE]); read into effect/ai's stream parts.
 */
import type { AiError, Response } from "effect/ai"
import type { Sse } from "effect/encoding"
import { metadataOf, parseArguments, usageOf } from "./ProviderHttp.ts"
import { eventJson, offFormat, type SseReader, streamFailure } from "./ProviderStream.ts"

type Part = Response.StreamPartEncoded

/** The finish reason of a response: its status, incomplete_details, and whether it called tools. */
export const finishOf = (
  response: { readonly status?: unknown; readonly incomplete_details?: unknown },
  calledTools: boolean
): Response.FinishReason => {
  if (response.status === "incomplete") {
    const reason = (response.incomplete_details as { reason?: unknown } | null | undefined)?.reason
    return reason === "max_output_tokens" ? "length" : reason === "content_filter" ? "content-filter" : "unknown"
  }
  if (response.status === "completed") return calledTools ? "tool-calls" : "stop"
  return "unknown"
}

interface Call {
  readonly id: string
  readonly name: string
  args: string
}

/** A reader of one Responses stream. */
export const reader = (): SseReader => {
  const calls = new Map<number, Call>()
  const texts = new Set<string>()
  let called = false
  let done = false

  const textStart = (id: string, parts: Array<Part>) => {
    if (texts.has(id)) return
    texts.add(id)
    parts.push({ type: "text-start", id })
  }

  const event = (sse: Sse.Event): ReadonlyArray<Part> | AiError.AiErrorReason => {
    const data = eventJson(sse)
    if (data === undefined) return offFormat()
    const parts: Array<Part> = []
    const index = typeof data.output_index === "number" ? data.output_index : -1
    const item = data.item as Record<string, unknown> | undefined
    switch (data.type) {
      case "response.created":
        return [metadataOf(data.response as { id?: unknown; model?: unknown } | undefined) as Part]
      case "response.output_item.added":
        if (item?.type === "function_call") {
          if (typeof item.call_id !== "string" || typeof item.name !== "string") return offFormat()
          calls.set(index, { id: item.call_id, name: item.name, args: "" })
          return [{ type: "tool-params-start", id: item.call_id, name: item.name }]
        }
        if (item?.type === "message" && typeof item.id === "string") textStart(item.id, parts)
        return parts
      case "response.output_text.delta":
        if (typeof data.item_id !== "string" || typeof data.delta !== "string") return offFormat()
        textStart(data.item_id, parts)
        parts.push({ type: "text-delta", id: data.item_id, delta: data.delta })
        return parts
      case "response.function_call_arguments.delta": {
        const call = calls.get(index)
        if (call === undefined || typeof data.delta !== "string") return offFormat()
        call.args += data.delta
        return [{ type: "tool-params-delta", id: call.id, delta: data.delta }]
      }
      case "response.function_call_arguments.done": {
        const call = calls.get(index)
        if (call === undefined) return offFormat()
        if (typeof data.arguments === "string") call.args = data.arguments
        return []
      }
      case "response.output_item.done": {
        if (item?.type === "message" && typeof item.id === "string" && texts.has(item.id)) {
          return [{ type: "text-end", id: item.id }]
        }
        const call = calls.get(index)
        if (item?.type !== "function_call" || call === undefined) return []
        calls.delete(index)
        called = true
        const args = typeof item.arguments === "string" ? item.arguments : call.args
        return [{ type: "tool-params-end", id: call.id }, {
          type: "tool-call",
          id: call.id,
          name: call.name,
          params: parseArguments(args)
        }]
      }
      case "response.completed":
      case "response.incomplete": {
        const response = (data.response ?? {}) as { status?: unknown; usage?: Record<string, unknown> }
        const usage = response.usage ?? {}
        done = true
        return [{
          type: "finish",
          reason: finishOf(response, called),
          usage: usageOf(usage.input_tokens, usage.output_tokens)
        }]
      }
      case "response.failed":
        return streamFailure(
          ((data.response as { error?: { code?: unknown } } | undefined)?.error)?.code
        )
      case "error":
        return streamFailure(data.code)
      default:
        return []
    }
  }

  return { event, done: () => done, end: () => undefined }
}
