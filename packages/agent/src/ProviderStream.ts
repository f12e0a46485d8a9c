/**
 * A streamed answer over HTTP: the response body as Server-Sent Events (effect's own SSE parser),
 * read into effect/ai's stream parts by the provider's reader. A body that ends before the answer
 * did, an event that is not the wire format and an error event are AiErrors naming nothing of the
 * body. Stopping the stream closes the response, and with it the request.
 */
import { JsonText } from "@interlock/core"
import { Effect, Stream } from "effect"
import { AiError, type Response } from "effect/ai"
import { Sse } from "effect/encoding"
import type { HttpClientResponse } from "effect/http"

/** Reads one answer's events (a fresh reader per request). */
export interface SseReader {
  /** The parts an event gives, or the reason the answer fails (an error event, an event off the format). */
  readonly event: (event: Sse.Event) => ReadonlyArray<Response.StreamPartEncoded> | AiError.AiErrorReason
  /** True once the answer's last event was read: nothing more is pulled. */
  readonly done: () => boolean
  /** At the body's end before `done`: the closing parts when the answer is complete all the same, else undefined. */
  readonly end: () => ReadonlyArray<Response.StreamPartEncoded> | undefined
}

/** An event's data as JSON, or undefined when it is not JSON. */
export const eventJson = (event: Sse.Event): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JsonText.parse(event.data)
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/** The reason for an event that is not the wire format. */
export const offFormat = (): AiError.AiErrorReason =>
  new AiError.InvalidResponseError({ description: "a stream event does not match the wire format" })

/** The reason for an error event; it names the provider's error type when that is a plain identifier. */
export const streamFailure = (type: unknown): AiError.AiErrorReason =>
  new AiError.InternalProviderError({
    description: `the stream reported an error${
      typeof type === "string" && /^[a-z_]{1,64}$/.test(type) ? ` (${type})` : ""
    }`
  })

/** The stream parts of a successful streamed response. */
export const streamParts = (
  module: string,
  response: HttpClientResponse.HttpClientResponse,
  reader: SseReader
): Stream.Stream<Response.StreamPartEncoded, AiError.AiError> => {
  const fail = (reason: AiError.AiErrorReason) => AiError.make({ module, method: "streamText", reason })
  const events = response.stream.pipe(
    Stream.mapError(() =>
      fail(
        new AiError.NetworkError({
          reason: "TransportError",
          method: "POST",
          url: "",
          description: "the stream broke off"
        })
      )
    ),
    Stream.decodeText,
    Stream.pipeThroughChannel(Sse.decode()),
    Stream.mapError((error) =>
      error instanceof AiError.AiError
        ? error
        : fail(new AiError.InvalidResponseError({ description: "the stream is not Server-Sent Events" }))
    )
  )
  const closing = Stream.suspend(() => {
    if (reader.done()) return Stream.empty
    const parts = reader.end()
    return parts === undefined
      ? Stream.fail(fail(new AiError.InvalidResponseError({ description: "the stream ended before the answer" })))
      : Stream.fromIterable(parts)
  })
  return events.pipe(
    Stream.mapEffect((event) => {
      const parts = reader.event(event)
      return Array.isArray(parts) ? Effect.succeed(parts) : Effect.fail(fail(parts as AiError.AiErrorReason))
    }),
    Stream.takeUntil(() => reader.done()),
    Stream.flattenIterable,
    Stream.concat(closing)
  )
}
