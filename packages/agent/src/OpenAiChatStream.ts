/**
 * The Chat Completions stream (`stream: true`): chunks whose `choices[0].delta` carries content and
 * tool calls by `index` (the id and name come first, the arguments in pieces), a `finish_reason`, a
 * usage-only chunk (`stream_options.include_usage`), then `[DONE]`; read into effect/ai's stream
 * parts. The tool calls become calls at the end, each with the arguments its pieces spelled.
 */
import type { AiError, Response } from "effect/ai"
import type { Sse } from "effect/encoding"
import { metadataOf, parseArguments, usageOf } from "./ProviderHttp.ts"
import { eventJson, offFormat, type SseReader, streamFailure } from "./ProviderStream.ts"

type Part = Response.StreamPartEncoded

/** Chat finish reasons as effect/ai's finish reasons. */
export const FINISH: Record<string, Response.FinishReason> = {
  stop: "stop",
  tool_calls: "tool-calls",
  function_call: "tool-calls",
  length: "length",
  content_filter: "content-filter"
}

interface Call {
  readonly id: string
  readonly name: string
  args: string
}

const TEXT_ID = "text"

/** A reader of one Chat Completions stream. */
export const reader = (): SseReader => {
  const calls = new Map<number, Call>()
  let started = false
  let textOpen = false
  let done = false
  let reason: string | undefined
  let usage: Record<string, unknown> = {}

  /** The closing parts: the text's end, each call (in index order), the finish. */
  const close = (): Array<Part> => {
    const parts: Array<Part> = textOpen ? [{ type: "text-end", id: TEXT_ID }] : []
    textOpen = false
    for (const [, call] of [...calls.entries()].sort(([a], [b]) => a - b)) {
      parts.push({ type: "tool-params-end", id: call.id }, {
        type: "tool-call",
        id: call.id,
        name: call.name,
        params: parseArguments(call.args)
      })
    }
    calls.clear()
    const finish = FINISH[String(reason)] ?? (parts.some((p) => p.type === "tool-call") ? "tool-calls" : "unknown")
    parts.push({ type: "finish", reason: finish, usage: usageOf(usage.prompt_tokens, usage.completion_tokens) })
    return parts
  }

  const toolDeltas = (deltas: unknown, parts: Array<Part>): AiError.AiErrorReason | undefined => {
    if (!Array.isArray(deltas)) return offFormat()
    for (const delta of deltas as Array<Record<string, unknown>>) {
      const index = delta?.index
      const fn = delta?.function as { name?: unknown; arguments?: unknown } | undefined
      if (typeof index !== "number") return offFormat()
      let call = calls.get(index)
      if (call === undefined) {
        if (typeof delta.id !== "string" || typeof fn?.name !== "string") return offFormat()
        call = { id: delta.id, name: fn.name, args: "" }
        calls.set(index, call)
        parts.push({ type: "tool-params-start", id: call.id, name: call.name })
      }
      if (typeof fn?.arguments === "string" && fn.arguments.length > 0) {
        call.args += fn.arguments
        parts.push({ type: "tool-params-delta", id: call.id, delta: fn.arguments })
      }
    }
    return undefined
  }

  const event = (sse: Sse.Event): ReadonlyArray<Part> | AiError.AiErrorReason => {
    if (sse.data.trim() === "[DONE]") {
      done = true
      return close()
    }
    const chunk = eventJson(sse)
    if (chunk === undefined) return offFormat()
    if (chunk.error !== undefined) return streamFailure((chunk.error as { type?: unknown } | null)?.type)
    const parts: Array<Part> = []
    if (!started) {
      started = true
      parts.push(metadataOf(chunk) as Part)
    }
    if (typeof chunk.usage === "object" && chunk.usage !== null) usage = chunk.usage as Record<string, unknown>
    const choice = Array.isArray(chunk.choices) ? (chunk.choices[0] as Record<string, unknown> | undefined) : undefined
    if (choice === undefined) return parts
    const delta = choice.delta as Record<string, unknown> | undefined
    if (typeof delta?.content === "string" && delta.content.length > 0) {
      if (!textOpen) parts.push({ type: "text-start", id: TEXT_ID })
      textOpen = true
      parts.push({ type: "text-delta", id: TEXT_ID, delta: delta.content })
    }
    if (delta?.tool_calls !== undefined && delta.tool_calls !== null) {
      const failed = toolDeltas(delta.tool_calls, parts)
      if (failed !== undefined) return failed
    }
    if (typeof choice.finish_reason === "string") reason = choice.finish_reason
    return parts
  }

  return {
    event,
    done: () => done,
    // A compatible server that ends the body after the finish reason, without [DONE], said everything.
    end: () => (reason === undefined ? undefined : close())
  }
}
