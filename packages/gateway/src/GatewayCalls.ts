/**
 * GatewayCalls: core's governed ToolCalls, built from a plan, with one audit row per call written
 * (and committed) before the result or error is handed back to the serving layer. If the row
 * cannot be written, the call fails closed with an AuditError instead of answering unaudited.
 */
import {
  Approvals,
  type CallError,
  type CallInput,
  type CallOptions,
  type ConfigError,
  Interlock,
  type Receipt,
  ToolCalls,
  type ToolCallsShape,
  type ToolResult,
  type ToolTransport
} from "@interlock/core"
import { Cause, Clock, Context, Effect, Exit, Layer } from "effect"
import { makeApprover } from "./Approver.ts"
import { ApprovalQueue } from "./ApprovalQueue.ts"
import { AuditRecord } from "./AuditRecord.ts"
import { type AuditError, AuditStore } from "./AuditStore.ts"
import type { Plan } from "./Plan.ts"
import { policyLayer } from "./PolicyConfig.ts"
import { redactResultParts } from "./ContentRedaction.ts"
import { redactingTransportLayer } from "./RedactingTransport.ts"
import { DETECT_ALL, redactionsFor, redactJson } from "./Redactor.ts"

/** The service interface: ToolCalls, with callTool audited. */
export interface GatewayCallsShape extends Omit<ToolCallsShape, "callTool"> {
  readonly callTool: (input: CallInput, options?: CallOptions) => Effect.Effect<ToolResult, CallError | AuditError>
}

/** The audited, governed calls of one gateway. */
export class GatewayCalls extends Context.Service<GatewayCalls, GatewayCallsShape>()("@interlock/gateway/GatewayCalls") {
  /** Builds the calls from a plan over a transport, an audit store and an approval queue. */
  static layer(plan: Plan): Layer.Layer<GatewayCalls, ConfigError, ToolTransport | AuditStore | ApprovalQueue> {
    return Layer.effect(GatewayCalls, make(plan)).pipe(Layer.provide(governedLayer(plan).pipe(Layer.provide(redactingTransportLayer(plan.redactions)))))
  }
}

/** Core's ToolCalls for a plan (hooks, policy, approvals, settings); provide a ToolTransport and an ApprovalQueue. */
export const governedLayer = (plan: Plan): Layer.Layer<ToolCalls, ConfigError, ToolTransport | ApprovalQueue> =>
  Interlock.layer({
    client: "interlock-gateway",
    hooks: plan.hooks,
    policy: policyLayer(plan.loaded.config, plan.loaded.predicates, plan.loaded.baseDir),
    approvals: Approvals.layer({ approver: makeApprover(plan.redactions, plan.approvals.route), timeout: plan.approvals.timeoutMs }),
    pinTools: plan.pinTools,
    ...(plan.hookTimeoutMs === undefined ? {} : { hookTimeout: plan.hookTimeoutMs }),
    ...(plan.callTimeoutMs === undefined ? {} : { callTimeout: plan.callTimeoutMs })
  })

const errorText = (error: CallError): string => (error._tag === "Denied" || error._tag === "HookFailed" || error._tag === "Timeout" ? `${error._tag}: ${error.message}` : error._tag)

const make = (plan: Plan) =>
  Effect.gen(function*() {
    const calls = yield* ToolCalls
    const store = yield* AuditStore
    const full = plan.audit.capture === "full"
    const row = (input: CallInput, options: CallOptions | undefined, started: number, ended: number, receipt: Receipt | undefined, extra: { readonly error?: string; readonly result?: ToolResult }) => {
      // Captured data is always scrubbed by the built-in detectors, on top of the configured redactions.
      const redactions = full ? [...redactionsFor(plan.redactions, input.serverId, input.name), ...DETECT_ALL] : []
      const fields: Record<string, unknown> = {
        time: started,
        callId: receipt?.callId ?? input.callId ?? "",
        server: input.serverId,
        tool: input.name,
        outcome: receipt?.outcome ?? "failed",
        durationMs: ended - started
      }
      if (options?.principal !== undefined) fields.principal = options.principal.id
      if (receipt !== undefined) {
        fields.receipt = receipt
        if (receipt.digest !== undefined) fields.digest = receipt.digest
        if (receipt.policy !== undefined) {
          fields.decision = receipt.policy.decision
          if (receipt.policy.rule !== undefined) fields.rule = receipt.policy.rule
        }
        if (receipt.approval !== undefined) {
          const { by, decision, source } = receipt.approval
          fields.approval = `${decision}:${source}${by === undefined ? "" : `:${by}`}`
        }
      }
      if (extra.error !== undefined) fields.error = extra.error
      if (full) {
        fields.args = redactJson(input.args ?? {}, redactions)
        if (extra.result !== undefined) {
          const { content, structuredContent, isError } = extra.result
          fields.result = { ...redactResultParts({ content, ...(structuredContent === undefined ? {} : { structuredContent }) }, redactions), isError: isError === true }
        }
      }
      return new AuditRecord(fields as ConstructorParameters<typeof AuditRecord>[0])
    }
    const callTool = (input: CallInput, options?: CallOptions): Effect.Effect<ToolResult, CallError | AuditError> =>
      Effect.gen(function*() {
        const started = yield* Clock.currentTimeMillis
        const exit = yield* Effect.exit(calls.callTool(input, options))
        const ended = yield* Clock.currentTimeMillis
        if (Exit.isSuccess(exit)) {
          yield* store.record(row(input, options, started, ended, exit.value.receipt, { result: exit.value }))
          return exit.value
        }
        const failure = Cause.findErrorOption(exit.cause)
        if (failure._tag === "Some") {
          const error = failure.value
          yield* store.record(row(input, options, started, ended, error.receipt, { error: errorText(error) }))
          return yield* Effect.fail(error)
        }
        return yield* Effect.failCause(exit.cause)
      })
    return GatewayCalls.of({
      callTool,
      listTools: calls.listTools,
      readResource: calls.readResource,
      getPrompt: calls.getPrompt
    })
  })
