/**
 * The servers' transport as the gateway's pipeline sees it, with the config's redactions applied to
 * what a server writes outside a result: the text of its errors (a JSON-RPC error message, a
 * transport failure's detail) and its progress messages. Everything downstream (hooks, receipts,
 * spans, the audit, every host front) then only ever sees redacted text.
 */
import {
  ProtocolError,
  type Timeout,
  ToolTransport,
  type ToolTransportShape,
  TransportError,
  type TransportFailure
} from "@interlock/core"
import { Effect, Layer } from "effect"
import { type Redaction, redactionsFor, redactText } from "./Redactor.ts"

/** A transport failure with its detail redacted (the same error when nothing matched). */
export const redactFailure = <E extends TransportFailure | Timeout>(
  error: E,
  redactions: ReadonlyArray<Redaction>
): E => {
  if (error._tag === "Timeout" || redactions.length === 0) return error
  const detail = redactText(error.detail, redactions)
  if (detail === error.detail) return error
  // Rebuilt with the same tag and fields, so E is kept.
  return (error._tag === "ProtocolError"
    ? new ProtocolError({
      serverId: error.serverId,
      code: error.code,
      detail,
      ...(error.requiredCapabilities === undefined ? {} : { requiredCapabilities: error.requiredCapabilities })
    })
    : new TransportError({ serverId: error.serverId, detail })) as E
}

/** Wraps a transport so that errors and progress messages pass the redactions that apply to the tool (URI, prompt). */
export const redactingTransport = (
  inner: ToolTransportShape,
  redactions: ReadonlyArray<Redaction>
): ToolTransportShape => {
  if (redactions.length === 0) return inner
  const scrub = <A, E extends TransportFailure | Timeout>(
    effect: Effect.Effect<A, E>,
    serverId: string,
    name: string
  ) => Effect.mapError(effect, (error) => redactFailure(error, redactionsFor(redactions, serverId, name)))
  return {
    ...inner,
    callTool: (call, options) => {
      const applying = redactionsFor(redactions, call.serverId, call.name)
      const onProgress = options.onProgress
      return scrub(
        inner.callTool(call, {
          ...options,
          onProgress: onProgress === undefined ?
            undefined :
            (progress) =>
              onProgress(
                progress.message === undefined
                  ? progress
                  : { ...progress, message: redactText(progress.message, applying) }
              )
        }),
        call.serverId,
        call.name
      )
    },
    // A listing failure is not about one tool: every redaction applies.
    listTools: (serverId) => Effect.mapError(inner.listTools(serverId), (error) => redactFailure(error, redactions)),
    // Learning a tool's definition may connect, and a failure to connect may quote the server's stderr.
    describeTool: inner.describeTool === undefined ? undefined : (serverId, name) => {
      const described = inner.describeTool?.(serverId, name)
      return Effect.isEffect(described) ? scrub(described, serverId, name) : described
    },
    readResource: (serverId, uri) => scrub(inner.readResource(serverId, uri), serverId, uri),
    getPrompt: (serverId, name, args) => scrub(inner.getPrompt(serverId, name, args), serverId, name)
  }
}

/** Replaces the ToolTransport in context with its redacting wrapper. */
export const redactingTransportLayer = (
  redactions: ReadonlyArray<Redaction>
): Layer.Layer<ToolTransport, never, ToolTransport> =>
  Layer.effect(
    ToolTransport,
    Effect.gen(function*() {
      return ToolTransport.of(redactingTransport(yield* ToolTransport, redactions))
    })
  )
