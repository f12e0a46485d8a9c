/**
 * GatewayCalls: core's governed ToolCalls, built from a plan, with every operation audited. A tool call's row is
 * written ahead and completed with its outcome (AuditedCall.ts); a subscription's or completion's decision gets its own
 * row (OperationAudit.ts); a call refused before the pipeline is recorded through `refuse`. Rows are built in
 * CallRows.ts. A row that cannot be written fails the operation closed (AuditError).
 */
import {
  Approvals,
  type CallInput,
  type CallOptions,
  type ConfigError,
  type Denied,
  type HookFailed,
  type HooksConfig,
  Interlock,
  type JsonObject,
  type OperationOptions,
  type PromptResult,
  type ResourceContents,
  ToolCalls,
  type ToolCallsShape,
  type ToolResult,
  type ToolTransport,
  type TransportFailure
} from "@interlock/core"
import { Clock, Context, Effect, Layer } from "effect"
import { type AuditError, AuditStore } from "../audit/AuditStore.ts"
import { type AuditFields, trustedRecord } from "../audit/GatewayAuditRecord.ts"
import { writeAheadLayer } from "../audit/WriteAhead.ts"
import type { Plan } from "../config/Plan.ts"
import { CredentialBroker, makeCredentialBroker } from "../credentials/CredentialBroker.ts"
import { credentialLayer, credentialStep, CurrentCredentialStep } from "../credentials/CredentialTransport.ts"
import { hooksWithInterceptors } from "../governance/InterceptorHost.ts"
import { planPolicyLayer } from "../governance/PolicyLayer.ts"
import { redactingTransportLayer } from "../governance/RedactingTransport.ts"
import { redactJson } from "../governance/Redactor.ts"
import type { ApprovalQueue } from "../state/ApprovalQueue.ts"
import type { StateSeal } from "../state/StateSeal.ts"
import type { UsedStates } from "../state/UsedStates.ts"
import { makeApprover } from "./Approver.ts"
import { type AuditedCallError, auditedCallTool } from "./AuditedCall.ts"
import { callRows, captured, REFUSED } from "./CallRows.ts"
import { withHookOptions } from "./HookAssigns.ts"
import { makeInputRelay, relayed as relayedRead } from "./InputRelay.ts"
import type { InputRequired } from "./InputRound.ts"
import { auditedDecision, type DecidedOperation } from "./OperationAudit.ts"
import type { StateRefused } from "./StateRefused.ts"

/** A call the gateway refused before the pipeline: what the host named, and why it was refused. */
export interface RefusedCall {
  /** The server the name resolved to, or {@link UNROUTED}. */
  readonly serverId: string
  readonly name: string
  /** The arguments as the host sent them (captured only with `capture: "full"`, redacted). */
  readonly args: unknown
  /** Why, in Interlock's words (never the arguments). */
  readonly reason: string
  /** The id its row records (the front names it to the host); a fresh one when absent. */
  readonly callId?: string | undefined
}

/** The server of a refused call whose tool name resolves to no server. */
export const UNROUTED = "(unrouted)"

/**
 * What a tool call can fail with, past core's own failures: the audit store failed, a round left
 * for the host, a refused retry, or no downstream credential (nothing was sent).
 */
export type GatewayCallError = AuditedCallError

/** What a read or get can fail with, past core's own failures: a round left for the host, or a refused retry. */
export type ReadFailure = Denied | HookFailed | TransportFailure | InputRequired | StateRefused

/**
 * The service interface: ToolCalls, with callTool audited, and the audit of calls refused before it.
 * A 2026-07-28 host's call, read or get (InputRound.ts) may end InputRequired, for the front to
 * answer `input_required`, or StateRefused when its retry's state was refused (a JSON-RPC error).
 */
export interface GatewayCallsShape
  extends Omit<ToolCallsShape, "callTool" | "readResource" | "getPrompt" | "decideRead" | "decidePrompt">
{
  readonly callTool: (input: CallInput, options?: CallOptions) => Effect.Effect<ToolResult, GatewayCallError>
  /** Reads a resource through core's gate; a 2026-07-28 host's read is relayed as a tool call is. */
  readonly readResource: (
    serverId: string,
    uri: string,
    options?: OperationOptions
  ) => Effect.Effect<ResourceContents, ReadFailure>
  /** Gets a prompt through core's gate; a 2026-07-28 host's get is relayed as a tool call is. */
  readonly getPrompt: (
    serverId: string,
    name: string,
    args?: JsonObject,
    options?: OperationOptions
  ) => Effect.Effect<PromptResult, ReadFailure>
  /** Decides, as a read of `uri` would be, the subscription or completion `operation`; audited. */
  readonly decideRead: (
    operation: DecidedOperation,
    serverId: string,
    uri: string,
    options?: OperationOptions
  ) => Effect.Effect<void, Denied | HookFailed | AuditError>
  /** Decides, as a get of the prompt with `args` would be, a completion; audited. */
  readonly decidePrompt: (
    serverId: string,
    name: string,
    args: JsonObject,
    options?: OperationOptions
  ) => Effect.Effect<void, Denied | HookFailed | AuditError>
  /**
   * Records a call refused before the pipeline (unknown tool, arguments not an object; outcome `refused`); committed
   * when it succeeds.
   */
  readonly refuse: (call: RefusedCall, options?: CallOptions) => Effect.Effect<void, AuditError>
}

/** The audited, governed calls of one gateway. */
export class GatewayCalls
  extends Context.Service<GatewayCalls, GatewayCallsShape>()("@interlock/gateway/GatewayCalls")
{
  /**
   * Builds the calls from a plan over a transport, an audit store, an approval queue and the
   * approval states' seal and marks, and the gateway's CredentialBroker (one made from the plan when
   * none is given: the hub's sessions then have no credentials of the plan's auth forms).
   */
  static layer(
    plan: Plan
  ): Layer.Layer<GatewayCalls, ConfigError, ToolTransport | AuditStore | ApprovalQueue | StateSeal | UsedStates> {
    // Core sends through the credential step, then the write-ahead audit, then the redaction of server errors.
    const broker = Layer.effect(
      CredentialBroker,
      Effect.flatMap(
        Effect.serviceOption(CredentialBroker),
        (given) => given._tag === "Some" ? Effect.succeed(given.value) : makeCredentialBroker(plan)
      )
    )
    const transport = credentialLayer([...plan.servers.keys()]).pipe(
      Layer.provide(broker),
      Layer.provide(writeAheadLayer.pipe(Layer.provide(redactingTransportLayer(plan.redactions))))
    )
    return Layer.effect(GatewayCalls, make(plan)).pipe(
      Layer.provide(governedLayer(plan).pipe(Layer.provide(transport)))
    )
  }
}

/**
 * Core's ToolCalls for a plan (hooks, policy, approvals, settings); provide a ToolTransport, an ApprovalQueue, a
 * StateSeal and UsedStates.
 */
export const governedLayer = (
  plan: Plan
): Layer.Layer<ToolCalls, ConfigError, ToolTransport | ApprovalQueue | StateSeal | UsedStates> =>
  // The config's interceptor servers are read here, and live as long as the generation (InterceptorHost.ts).
  Layer.unwrap(Effect.map(hooksWithInterceptors(plan), (hooks) => governedWith(plan, hooks)))

const governedWith = (plan: Plan, hooks: HooksConfig) =>
  Interlock.layer({
    client: "interlock-gateway",
    hooks,
    policy: planPolicyLayer(plan, plan.loaded.baseDir),
    approvals: Approvals.layer({
      approver: makeApprover(plan.redactions, plan.approvals.route, plan.approvals.timeoutMs),
      timeout: plan.approvals.timeoutMs
    }),
    pinTools: plan.pinTools,
    // A Cedar policy, or rules that govern resources or prompts, also govern listings: what no call,
    // read or get could be permitted is not listed.
    hideDenied: plan.loaded.config.policy?.cedar !== undefined ||
      (plan.loaded.config.policy?.rules ?? []).some((rule) => rule.on !== undefined && rule.on !== "tools"),
    ...(plan.hookTimeoutMs === undefined ? {} : { hookTimeout: plan.hookTimeoutMs }),
    ...(plan.callTimeoutMs === undefined ? {} : { callTimeout: plan.callTimeoutMs })
  })

const make = (plan: Plan) =>
  Effect.gen(function*() {
    const calls = yield* ToolCalls
    const rows = callRows(plan, yield* AuditStore)
    const relay = yield* makeInputRelay(plan.redactions)
    const callTool = auditedCallTool({ calls, rows, relay })
    // Each operation's principal goes to the credential step of the transport, for its downstream credential.
    const withPrincipal = <A, E, R>(options: OperationOptions | undefined, effect: Effect.Effect<A, E, R>) =>
      Effect.provideService(effect, CurrentCredentialStep, credentialStep(options?.principal))
    const refuse = (call: RefusedCall, options?: CallOptions): Effect.Effect<void, AuditError> =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const fields: AuditFields = {
          ...(yield* rows.base(call.serverId, call.name, call.callId ?? crypto.randomUUID(), options, now)),
          outcome: REFUSED,
          sent: false,
          durationMs: 0,
          error: call.reason
        }
        if (rows.full && call.args !== undefined) {
          fields.args = captured(() => redactJson(call.args, rows.redactionsOf(call.serverId, call.name)))
        }
        return yield* rows.store.record(trustedRecord(fields))
      })
    const decided = auditedDecision(rows)
    // What core's hooks see of the request's host (HookAssigns.ts) is added to every operation's options.
    return GatewayCalls.of({
      callTool,
      refuse,
      listTools: (serverId, options) =>
        withHookOptions(options, (given) => withPrincipal(given, calls.listTools(serverId, given))),
      visibleOperations: (entries, operationOf, options) =>
        withHookOptions(options, (given) => calls.visibleOperations(entries, operationOf, given)),
      decideRead: (operation, serverId, uri, options) =>
        withHookOptions(
          options,
          (given) => decided(operation, serverId, { uri }, given, calls.decideRead(serverId, uri, given))
        ),
      decidePrompt: (serverId, name, args, options) =>
        withHookOptions(options, (given) =>
          decided(
            "completion/complete",
            serverId,
            { prompt: name, arguments: args },
            given,
            calls.decidePrompt(serverId, name, args, given)
          )),
      // A 2026-07-28 host's reads and gets are relayed as its tool calls are; a 2025 host is asked over its session.
      readResource: (serverId, uri, options) =>
        withHookOptions(
          options,
          (given) => relayedRead(relay, serverId, given, withPrincipal(given, calls.readResource(serverId, uri, given)))
        ),
      getPrompt: (serverId, name, args, options) =>
        withHookOptions(
          options,
          (given) =>
            relayedRead(relay, serverId, given, withPrincipal(given, calls.getPrompt(serverId, name, args, given)))
        )
    })
  })
