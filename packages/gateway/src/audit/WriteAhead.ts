/**
 * The write-ahead step of the audit: GatewayCalls gives each call's fiber a {@link WriteAhead}, and
 * the transport under core's pipeline runs it just before the request goes downstream, so the row
 * saying "sent" is committed before the server can act. A call that never reaches the transport
 * (denied, halted, failed before sending) writes no write-ahead row; GatewayCalls records it whole.
 */
import { type ToolCall, ToolTransport, type ToolTransportShape, type TransportError } from "@interlock/core"
import { Context, Effect, Layer } from "effect"

/** One call's write-ahead step: commits the `pending` row for the call as it is about to be sent. */
export interface WriteAhead {
  /** Fails with a TransportError (nothing is sent) when the row cannot be written. */
  readonly begin: (call: ToolCall) => Effect.Effect<void, TransportError>
}

/** The current call's write-ahead step; none outside a GatewayCalls call. */
export const CurrentWriteAhead = Context.Reference<WriteAhead | undefined>("@interlock/gateway/WriteAhead", {
  defaultValue: () => undefined
})

/** A transport whose callTool first runs the current call's write-ahead step. */
export const writeAheadTransport = (transport: ToolTransportShape): ToolTransportShape => ({
  ...transport,
  callTool: (call, options) =>
    Effect.flatMap(
      Effect.service(CurrentWriteAhead),
      (step) =>
        step === undefined
          ? transport.callTool(call, options)
          : Effect.andThen(step.begin(call), transport.callTool(call, options))
    )
})

/** Wraps the ToolTransport it is given with {@link writeAheadTransport}. */
export const writeAheadLayer: Layer.Layer<ToolTransport, never, ToolTransport> = Layer.effect(
  ToolTransport,
  Effect.map(Effect.service(ToolTransport), writeAheadTransport)
)
