/**
 * What a run knows of its tool calls in flight: each call that entered the pipeline until it
 * settles, and whether its request reached the tool. Core's pipeline gives no receipt for an
 * interrupted call, so a run cut short records each call still in flight with one the agent makes
 * (and the calls of its last turn that did settle, with core's).
 */
import { type JsonObject, makeTrusted, Receipt, type ToolTransportShape } from "@interlock/core"
import { Context, Effect } from "effect"
import { AgentToolCall } from "./AgentToolCall.ts"

/** A call that entered the pipeline and has not settled. `sent` turns true when its request reaches the tool. */
export interface StartedCall {
  readonly id: string
  readonly name: string
  readonly serverId: string
  readonly toolName: string
  readonly args: JsonObject
  readonly turn: number
  sent: boolean
}

/** A run's calls in flight, those of the turn that settled, and who is told of each call as it settles. */
export interface CallWatch {
  readonly started: Set<StartedCall>
  /** Calls of the current turn that settled; the turn's end records them (and empties this). */
  readonly done: Array<AgentToolCall>
  readonly settled: ((call: AgentToolCall) => Effect.Effect<void>) | undefined
}

/** A fresh watch; `settled` is told of each settled call (a stream's ToolResult events). */
export const makeWatch = (settled?: (call: AgentToolCall) => Effect.Effect<void>): CallWatch => ({
  started: new Set(),
  done: [],
  settled
})

/** The call whose pipeline the current fiber runs (the transport's fiber inherits it). */
export const CurrentCall = Context.Reference<StartedCall | undefined>("@interlock/agent/CurrentCall", {
  defaultValue: () => undefined
})

/** A transport that marks the current call as sent when its request reaches the tool. */
export const watchTransport = (transport: ToolTransportShape): ToolTransportShape => ({
  ...transport,
  callTool: (call, options) =>
    Effect.flatMap(Effect.service(CurrentCall), (current) => {
      if (current !== undefined) current.sent = true
      return transport.callTool(call, options)
    })
})

/** What the model is told of a call the run's cancellation ended. */
export const CANCELLED_OUTPUT = "cancelled: the run ended before the call did"

/**
 * Records of the calls still in flight when the run was cancelled. Their receipts are the agent's:
 * outcome failed, `sent` as observed, and no hook runs (what ran before the interruption is not known).
 */
export const cancelledCalls = (watch: CallWatch): Array<AgentToolCall> =>
  Array.from(watch.started, (call) =>
    makeTrusted(AgentToolCall, {
      id: call.id,
      name: call.name,
      args: call.args,
      output: CANCELLED_OUTPUT,
      isError: true,
      turn: call.turn,
      cancelled: true,
      receipt: makeTrusted(Receipt, {
        callId: call.id,
        serverId: call.serverId,
        name: call.toolName,
        hooks: [],
        sent: call.sent,
        outcome: "failed"
      })
    }))
