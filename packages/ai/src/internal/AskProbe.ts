/**
 * Whether the pipeline would ask for approval of a call, learnt before the framework runs it, so that the policy's
 * Ask can go through the framework's own approval flow: the call's preToolCall hooks and the policy run on a client
 * that sends nothing, runs no post-hook and reports no receipt.
 */
import {
  Approvals,
  type HooksConfig,
  Interlock,
  type JsonObject,
  type Principal,
  ToolResult,
  ToolTransport,
  type ToolTransportShape
} from "@interlock/core"
import { Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"

/** The policy's Ask: its reason (the operator's words, never the arguments) and the rule that asked. */
export interface Asked {
  readonly reason: string
  readonly rule?: string | undefined
}

/** The probe: `asks` answers whether a call would be asked about; `close` releases its client. */
export interface AskProbe {
  readonly asks: (
    server: string,
    tool: string,
    input: JsonObject,
    toolCallId: string | undefined
  ) => Promise<Asked | undefined>
  readonly close: () => Promise<void>
}

const NOTHING = ToolResult.text("")

/**
 * A probe over `transport` (the bridge's, for listings and the tools' definitions) with the client's options. Only
 * the preToolCall hooks run: a hook that denies, halts or fails means no Ask, and the call is then decided again,
 * whole, when the framework runs it.
 */
export const makeAskProbe = (
  transport: ToolTransportShape,
  options: Omit<Interlock.ClientOptions<HooksConfig, unknown, unknown, never>, "transport" | "approvals">,
  principal: Principal | undefined
): AskProbe => {
  const asked = new Map<string, Asked>()
  const probing: ToolTransportShape = { ...transport, callTool: () => Effect.succeed(NOTHING) }
  const client = Interlock.client({
    ...options,
    hooks: { preToolCall: options.hooks?.preToolCall ?? [] },
    approvals: Approvals.layer({
      approver: ({ call, reason, rule }) => {
        asked.set(call.callId, { reason, rule })
        return { decision: "deny" }
      }
    }),
    transport: Layer.succeed(ToolTransport, probing)
  })
  return {
    close: client.close,
    asks: async (server, tool, input, toolCallId) => {
      const callId = randomUUID()
      try {
        await client.callTool(
          { serverId: server, name: tool, args: input, callId },
          {
            ...(principal === undefined ? {} : { principal }),
            ...(toolCallId === undefined ? {} : { assigns: { toolCallId } })
          }
        )
      } catch {
        // A deny, a halt or a failure: no Ask; the call runs through the whole pipeline, which decides it again.
      }
      const answer = asked.get(callId)
      asked.delete(callId)
      return answer
    }
  }
}
