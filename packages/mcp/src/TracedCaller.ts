/**
 * The caller of the current request, with the trace continued: when a recording tracer has a span
 * of ours open around the request (core's call span, say), the server's `traceparent` names that
 * span as its parent, so the server's spans hang under ours in the caller's trace. Otherwise the
 * caller's own trace context passes as given (RequestMeta.ts); tracestate and baggage always do.
 */
import { TRACEPARENT_META_KEY } from "@modelcontextprotocol/client"
import { Context, Effect, type Fiber, References, Tracer } from "effect"
import { type Caller, CurrentCaller } from "./Caller.ts"
import { formatTraceparent } from "./TraceContext.ts"

/** The traceparent of the fiber's current span, when it is our own and a real tracer records it. */
const ownTraceparent = (fiber: Fiber.Fiber<unknown, unknown>): string | undefined => {
  if (!fiber.getRef(References.TracerEnabled) || fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer) return undefined
  const span = Context.getOrUndefined(fiber.context, Tracer.ParentSpan)
  return span === undefined || span._tag !== "Span" ? undefined : formatTraceparent(span)
}

/** `caller` with its `traceparent` naming `traceparent` instead (same key, so per-host sessions are unchanged). */
export const continueTrace = (caller: Caller | undefined, traceparent: string | undefined): Caller | undefined =>
  caller === undefined || traceparent === undefined
    ? caller
    : { ...caller, meta: { ...caller.meta, [TRACEPARENT_META_KEY]: traceparent } }

/** The current caller (CurrentCaller), its trace continued from the fiber's span. */
export const currentCaller: Effect.Effect<Caller | undefined> = Effect.withFiber((fiber) =>
  Effect.succeed(continueTrace(fiber.getRef(CurrentCaller), ownTraceparent(fiber)))
)
