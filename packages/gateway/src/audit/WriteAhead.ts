/**
 * The write-ahead step of the audit: GatewayCalls gives each call's fiber a {@link WriteAhead}, and
 * the transport under core's pipeline runs it just before the request goes downstream, so the row
 * saying "sent" is committed before the server can act. A call that never reaches the transport
 * (denied, halted, failed before sending) writes no write-ahead row; GatewayCalls records it whole.
 */
import { type ToolCall, ToolTransport, type ToolTransportShape, TransportError } from "@interlock/core"
import { Context, Effect, Layer, Ref } from "effect"
import type { AuditError } from "./AuditStore.ts"

/** One call's write-ahead step: commits the `pending` row for the call as it is about to be sent. */
export interface WriteAhead {
  /** Fails with the store's AuditError (nothing is sent) when the row cannot be written. */
  readonly begin: (call: ToolCall) => Effect.Effect<void, AuditError>
}

/** The current call's write-ahead step; none outside a GatewayCalls call. */
export const CurrentWriteAhead = Context.Reference<WriteAhead | undefined>("@interlock/gateway/WriteAhead", {
  defaultValue: () => undefined
})

/** What became of a call's write-ahead row: never begun (the call did not reach the transport), written, or failed. */
export type WriteAheadState =
  | { readonly _tag: "Unwritten" }
  | { readonly _tag: "Written"; readonly id: number }
  | { readonly _tag: "Failed"; readonly error: AuditError }

/** One call's write-ahead step over `write` (which commits the row and returns its id), and what became of its row. */
export interface WriteAheadRow {
  readonly step: WriteAhead
  readonly state: Effect.Effect<WriteAheadState>
}

/** Makes a call's {@link WriteAheadRow}. */
export const writeAheadRow = (
  write: (call: ToolCall) => Effect.Effect<number, AuditError>
): Effect.Effect<WriteAheadRow> =>
  Effect.map(Ref.make<WriteAheadState>({ _tag: "Unwritten" }), (state) => ({
    step: {
      begin: (call) =>
        Effect.matchEffect(write(call), {
          onSuccess: (id) => Ref.set(state, { _tag: "Written", id }),
          onFailure: (error) => Effect.andThen(Ref.set(state, { _tag: "Failed", error }), Effect.fail(error))
        })
    },
    state: Ref.get(state)
  }))

/**
 * A transport whose callTool first runs the current call's write-ahead step. Core's transport
 * channel carries only transport failures, so a row that cannot be written stops the request here
 * as one; GatewayCalls answers the call with the AuditError itself (its row's state says Failed).
 */
export const writeAheadTransport = (transport: ToolTransportShape): ToolTransportShape => ({
  ...transport,
  callTool: (call, options) =>
    Effect.flatMap(
      Effect.service(CurrentWriteAhead),
      (step) =>
        step === undefined
          ? transport.callTool(call, options)
          : Effect.andThen(
            Effect.mapError(step.begin(call), () =>
              new TransportError({
                serverId: call.serverId,
                detail: "the audit row could not be written, so the request was not sent"
              })),
            transport.callTool(call, options)
          )
    )
})

/** Wraps the ToolTransport it is given with {@link writeAheadTransport}. */
export const writeAheadLayer: Layer.Layer<ToolTransport, never, ToolTransport> = Layer.effect(
  ToolTransport,
  Effect.map(Effect.service(ToolTransport), writeAheadTransport)
)
