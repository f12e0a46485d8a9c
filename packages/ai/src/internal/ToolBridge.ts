/**
 * A framework's tools as one Interlock server: each call the framework makes runs through core's pipeline (hooks,
 * the policy, approvals, receipts) and, when the pipeline sends it, reaches the framework tool's own function through
 * a transport keyed by call. The adapters (vercel/, ...) only translate their framework's tool to a {@link Run}.
 */
import {
  Approvals,
  type HooksConfig,
  Interlock,
  InterlockError,
  type JsonObject,
  type Principal,
  type Receipt,
  Tool,
  ToolResult,
  ToolTransport,
  type ToolTransportShape,
  TransportError,
  unsupported
} from "@interlock/core"
import { Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { type Asked, type AskProbe, makeAskProbe } from "./AskProbe.ts"
import type { Codec } from "./Codec.ts"
import { jsonCodec } from "./JsonCodec.ts"
import { runTool } from "./ToolRun.ts"

/** The framework tool's own function for one call: the final arguments (after rewrites) and a signal. */
export type Run = (args: JsonObject, signal: AbortSignal) => unknown

/** Which framework call a receipt is for. */
export interface CallRef {
  /** The tool's name in the framework's tool set, as the policy matches it (`server/name`). */
  readonly tool: string
  /** The framework's id of the call (the model's tool call id), when it has one. */
  readonly toolCallId?: string | undefined
}

/** Options every adapter takes: core's client options (hooks, policy, approvals, settings) and these. */
export type BridgeOptions<C extends HooksConfig = HooksConfig> =
  & Omit<Interlock.ClientOptions<C, unknown, unknown, never>, "transport">
  & {
    /** The server id the tools have in matchers and receipts (`ai/deleteFile`); default "ai". */
    readonly server?: string
    /** Who is calling, for the policy's principal rules; default none. */
    readonly principal?: Principal
    /**
     * Gets every call's receipt, allowed or not, before the framework sees the outcome: the audit record. When it
     * throws or rejects, the call fails with that error and its result is withheld.
     */
    readonly onReceipt?: (receipt: Receipt, call: CallRef) => void | PromiseLike<void>
  }

/** What the framework tool produced for one call, kept so that an untouched result goes back as it came. */
type Settled =
  | { readonly _tag: "Value"; readonly value: unknown; readonly result: ToolResult }
  | { readonly _tag: "Thrown"; readonly error: unknown; readonly result: ToolResult }

interface Pending {
  readonly run: Run
  settled?: Settled
}

/** The text a tool's own error becomes for the hooks: its message, as NativeTool words it. */
const thrownText = (error: unknown): string => {
  const message = (error as { message?: unknown } | null)?.message
  return typeof message === "string" && message.length > 0 ? `Tool failed: ${message}` : "Tool failed."
}

/**
 * Whether the pipeline gave back what the tool produced: the same blocks, JSON and error flag (the pipeline copies
 * the result to attach its receipt; a hook that replaces any of them makes new ones).
 */
const untouched = (result: ToolResult, produced: ToolResult): boolean =>
  result.content === produced.content && result.structuredContent === produced.structuredContent &&
  result.isError === produced.isError

/** The framework's value for a result: the tool's own output when no hook changed it, else the codec's. */
const outputOf = (result: ToolResult, settled: Settled | undefined, codec: Codec): unknown => {
  if (settled !== undefined && untouched(result, settled.result)) {
    if (settled._tag === "Thrown") throw settled.error
    return settled.value
  }
  return codec.fromResult(result, settled?._tag === "Value" ? settled.value : undefined)
}

/**
 * How the policy's Ask is answered when the framework's own approval flow answers it: who the receipts name as the
 * approver, and the reason a call the flow did not approve is denied with.
 */
export interface FrameworkApprovals {
  readonly by: string
  readonly unapproved: string
}

/** The bridge: `call` runs one framework call through the pipeline; `close` releases the client. */
export interface Bridge {
  readonly server: string
  readonly call: (
    tool: string,
    input: unknown,
    run: Run,
    options: {
      readonly toolCallId?: string | undefined
      readonly signal?: AbortSignal | undefined
      /** Whether the framework's approval flow approved this very call (with {@link FrameworkApprovals}). */
      readonly approved?: boolean | undefined
    }
  ) => Promise<unknown>
  /** Whether the pipeline would ask for approval of this call (the preToolCall hooks and the policy only). */
  readonly asks: (tool: string, input: JsonObject, toolCallId: string | undefined) => Promise<Asked | undefined>
  readonly close: () => Promise<void>
}

/**
 * A bridge over `tools` (name and definition, for listings and the policy's view of a tool), converting with `codec`.
 * With `framework`, the policy's Ask is allowed only for calls the framework's approval flow approved.
 */
export const makeBridge = (
  tools: ReadonlyArray<Omit<Tool, "serverId" | "fingerprint">>,
  options: BridgeOptions,
  codec: Codec = jsonCodec,
  framework?: FrameworkApprovals
): Bridge => {
  const { server = "ai", principal, onReceipt, ...clientOptions } = options
  const pending = new Map<string, Pending>()
  const listed = tools.map((tool) => new Tool({ ...tool, serverId: server }))
  const byName = new Map(listed.map((tool) => [tool.name, tool]))
  const noServer = (serverId: string) => Effect.fail(new TransportError({ serverId, detail: "no such server" }))
  const transport: ToolTransportShape = {
    callTool: (call, { timeoutMs }) => {
      const entry = pending.get(call.callId)
      if (call.serverId !== server || entry === undefined) return noServer(call.serverId)
      return runTool((signal) => entry.run(call.args, signal), timeoutMs, (outcome) => {
        if (outcome.ok) {
          const result = codec.toResult(outcome.value)
          entry.settled = { _tag: "Value", value: outcome.value, result }
          return result
        }
        const result = ToolResult.text(thrownText(outcome.error), { isError: true })
        entry.settled = { _tag: "Thrown", error: outcome.error, result }
        return result
      })
    },
    enforcesDeadline: true,
    listTools: (
      serverId
    ) => (serverId === undefined || serverId === server ? Effect.succeed(listed) : noServer(serverId)),
    readResource: (serverId) => unsupported(serverId, "resources/read"),
    getPrompt: (serverId) => unsupported(serverId, "prompts/get"),
    era: () => "native",
    describeTool: (serverId, name) => (serverId === server ? byName.get(name) : undefined)
  }
  const approved = new Set<string>()
  const client = Interlock.client({
    ...(clientOptions as Omit<Interlock.ClientOptions<never, unknown, unknown, never>, "transport">),
    ...(framework === undefined ? {} : {
      approvals: Approvals.layer({
        approver: ({ call }) =>
          approved.has(call.callId)
            ? { decision: "allow", by: framework.by }
            : { decision: "deny", reason: framework.unapproved }
      })
    }),
    transport: Layer.succeed(ToolTransport, transport)
  })
  let probe: AskProbe | undefined
  const { approvals: _, ...probeOptions } = clientOptions
  // Absent without an onReceipt, so that such a call waits for nothing more.
  const audit = onReceipt === undefined ? undefined : async (receipt: Receipt | undefined, ref: CallRef) => {
    if (receipt !== undefined) await onReceipt(receipt, ref)
  }
  return {
    server,
    close: () => Promise.all([client.close(), probe?.close()]).then(() => undefined),
    asks: (tool, input, toolCallId) => {
      probe ??= makeAskProbe(transport, probeOptions, principal)
      return probe.asks(server, tool, input, toolCallId)
    },
    call: async (tool, input, run, { approved: sdkApproved, signal, toolCallId }) => {
      if (input === null || typeof input !== "object" || Array.isArray(input)) {
        throw new TypeError(`the input of tool ${tool} is not a JSON object`)
      }
      const callId = randomUUID()
      const entry: Pending = { run }
      pending.set(callId, entry)
      if (sdkApproved === true && framework !== undefined) approved.add(callId)
      const ref = { tool, toolCallId }
      try {
        const result = await client.callTool(
          { serverId: server, name: tool, args: input as JsonObject, callId },
          {
            ...(signal === undefined ? {} : { signal }),
            ...(principal === undefined ? {} : { principal }),
            ...(toolCallId === undefined ? {} : { assigns: { toolCallId } })
          }
        )
        if (audit !== undefined) await audit(result.receipt, ref)
        return outputOf(result, entry.settled, codec)
      } catch (error) {
        if (audit !== undefined && InterlockError.is(error)) {
          await audit((error as { receipt?: Receipt }).receipt, ref)
        }
        throw error
      } finally {
        pending.delete(callId)
        approved.delete(callId)
      }
    }
  }
}
