/** Captures spans, logs and unhandled rejections during a test, to assert on what leaves the pipeline. */
import { Effect, Logger, Tracer } from "effect"

/** Everything observed. */
export interface Captured {
  readonly spans: Array<Tracer.Span>
  readonly logs: Array<string>
}

/** Runs `effect` with a recording tracer and logger. */
export const capturing = <A, E, R>(effect: (captured: Captured) => Effect.Effect<A, E, R>) => {
  const captured: Captured = { spans: [], logs: [] }
  const tracer = Tracer.make({
    span: (options) => {
      const span = Tracer.nativeTracer.span(options)
      captured.spans.push(span)
      return span
    }
  })
  const logger = Logger.make((entry) => {
    captured.logs.push(JSON.stringify({ message: entry.message, cause: String(entry.cause) }))
  })
  return effect(captured).pipe(Effect.withTracer(tracer), Effect.provide(Logger.layer([logger])))
}

/** Everything a span holds, as one string, for leak searches. */
export const spanText = (span: Tracer.Span): string =>
  JSON.stringify({
    name: span.name,
    attributes: Object.fromEntries(span.attributes),
    status: String(span.status._tag === "Ended" ? span.status.exit : ""),
    events: (span as unknown as { events?: unknown }).events ?? []
  })

/** The attributes of the spans with a name. */
export const spansNamed = (captured: Captured, name: string) =>
  captured.spans.filter((span) => span.name === name).map((span) => Object.fromEntries(span.attributes))

/** Collects unhandled promise rejections for the duration of a test file. */
export const trackRejections = () => {
  const seen: Array<unknown> = []
  const listener = (reason: unknown) => seen.push(reason)
  process.on("unhandledRejection", listener)
  return { seen, stop: () => process.off("unhandledRejection", listener) }
}
