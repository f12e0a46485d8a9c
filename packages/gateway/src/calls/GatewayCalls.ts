/**
 * GatewayCalls: core's governed ToolCalls, built from a plan, with every call audited. The row is
 * write-ahead: committed `pending` just before the request goes downstream (WriteAhead), then
 * completed with the outcome before the result or error is handed back to the serving layer, also
 * when the host cancels (outcome `cancelled`, in an uninterruptible step). A call that never reached
 * the transport is recorded whole; one refused before the pipeline (unknown tool, arguments not an
 * object) through `refuse`. If a row cannot be written, the call fails closed with an AuditError.
 */
import {
  Approvals,
  type CallError,
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
  type Receipt,
  type ResourceContents,
  type ToolCall,
  ToolCalls,
  type ToolCallsShape,
  type ToolResult,
  type ToolTransport,
  TransportError,
  type TransportFailure
} from "@interlock/core"
import { Cause, Clock, Context, Effect, Exit, Layer } from "effect"
import { type AuditError, AuditStore } from "../audit/AuditStore.ts"
import { type AuditFields, GATEWAY_INSTANCE, PENDING, trustedRecord } from "../audit/GatewayAuditRecord.ts"
import { CurrentWriteAhead, writeAheadLayer } from "../audit/WriteAhead.ts"
import type { Plan } from "../config/Plan.ts"
import { redactResultParts } from "../governance/ContentRedaction.ts"
import { hooksWithInterceptors } from "../governance/InterceptorHost.ts"
import { planPolicyLayer } from "../governance/PolicyLayer.ts"
import { redactingTransportLayer } from "../governance/RedactingTransport.ts"
import { detectAll, redactionsFor, redactJson, redactText } from "../governance/Redactor.ts"
import { ApprovalQueue } from "../state/ApprovalQueue.ts"
import type { StateSeal } from "../state/StateSeal.ts"
import type { UsedStates } from "../state/UsedStates.ts"
import { makeApprover } from "./Approver.ts"
import { hookOptions, withHookOptions } from "./HookAssigns.ts"
import { clientName, CurrentHostClient, CurrentHostToolUseId } from "./HostClient.ts"
import { makeInputRelay, relayed as relayedRead } from "./InputRelay.ts"
import { CurrentHostInput, type InputRequired, requiredInput } from "./InputRound.ts"
import { auditedDecision, type DecidedOperation } from "./OperationAudit.ts"
import { refusedState, type StateRefused } from "./StateRefused.ts"
import { CurrentTaskAudit, taskAuditOf, type TaskEnding } from "./TaskAudit.ts"

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
  readonly callTool: (
    input: CallInput,
    options?: CallOptions
  ) => Effect.Effect<ToolResult, CallError | AuditError | InputRequired | StateRefused>
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
  /** Records a call refused before the pipeline (outcome `refused`); committed when it succeeds. */
  readonly refuse: (call: RefusedCall, options?: CallOptions) => Effect.Effect<void, AuditError>
}

/** The audited, governed calls of one gateway. */
export class GatewayCalls
  extends Context.Service<GatewayCalls, GatewayCallsShape>()("@interlock/gateway/GatewayCalls")
{
  /** Builds the calls from a plan over a transport, an audit store, an approval queue and the approval states' seal and marks. */
  static layer(
    plan: Plan
  ): Layer.Layer<GatewayCalls, ConfigError, ToolTransport | AuditStore | ApprovalQueue | StateSeal | UsedStates> {
    // Core sends through the write-ahead audit, which sends through the redaction of server errors.
    const transport = writeAheadLayer.pipe(Layer.provide(redactingTransportLayer(plan.redactions)))
    return Layer.effect(GatewayCalls, make(plan)).pipe(
      Layer.provide(governedLayer(plan).pipe(Layer.provide(transport)))
    )
  }
}

/** Core's ToolCalls for a plan (hooks, policy, approvals, settings); provide a ToolTransport, an ApprovalQueue, a StateSeal and UsedStates. */
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

const errorText = (
  error: CallError
): string => (error._tag === "Denied" || error._tag === "HookFailed" || error._tag === "Timeout"
  ? `${error._tag}: ${error.message}`
  : error._tag)

/** The outcome of a call's row when the call ended asking the host for input (a 2026-07-28 approval). */
export const INPUT_REQUIRED = "input_required"

/** The outcome of a call's row when the gateway refused it (before the pipeline, or a retry whose state it refused). */
export const REFUSED = "refused"

/** What a captured value becomes if redacting it fails (the redactor is iterative and should not). */
export const NOT_CAPTURED = "[not captured: the value could not be redacted]"

// Defence in depth: a row says "not captured" rather than being lost or holding an unredacted value.
const captured = <A>(redact: () => A): A | typeof NOT_CAPTURED => {
  try {
    return redact()
  } catch {
    return NOT_CAPTURED
  }
}

/** How a call ended, for its row: core's receipt when it got one, else what the gateway saw. */
interface Ending {
  readonly receipt?: Receipt | undefined
  readonly outcome?: string
  readonly sent: boolean
  readonly error?: string | undefined
  readonly result?: ToolResult
  /** A server task's result, when the row of the call that created it is completed (TaskAudit.ts). */
  readonly task?: TaskEnding["result"]
}

/** What the gateway's rows say about the call they record, whatever its outcome. */
type CallFields = Pick<AuditFields, "time" | "callId" | "server" | "tool"> & Partial<AuditFields>

/** What a row says of the current request's host: its client, and its own id of the call. */
const hostFields: Effect.Effect<Partial<AuditFields>> = Effect.map(
  Effect.all([CurrentHostToolUseId, CurrentHostClient]),
  ([toolUseId, host]) => {
    const fields: Partial<AuditFields> = {}
    if (toolUseId !== undefined) fields.toolUseId = toolUseId
    const client = clientName(host)
    if (client !== undefined) fields.client = client
    return fields
  }
)

/** A call's own copy of the request's host input, which keys what the call records (InputRound.ts). */
const withOwnHostInput = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(
    CurrentHostInput,
    (input) => input === undefined ? effect : Effect.provideService(effect, CurrentHostInput, { ...input })
  )

const receiptFields = (fields: Partial<AuditFields>, receipt: Receipt): void => {
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

const make = (plan: Plan) =>
  Effect.gen(function*() {
    const calls = yield* ToolCalls
    const store = yield* AuditStore
    const full = plan.audit.capture === "full"
    const relay = yield* makeInputRelay(plan.redactions)
    // Captured data is always scrubbed by the built-in detectors, on top of the configured redactions.
    const redactionsOf = (
      serverId: string,
      name: string
    ) => [...redactionsFor(plan.redactions, serverId, name), ...detectAll()]
    const base = (
      serverId: string,
      name: string,
      callId: string,
      options: OperationOptions | undefined,
      started: number
    ): Effect.Effect<CallFields> =>
      Effect.map(hostFields, (host) => {
        const fields: CallFields = {
          time: started,
          callId,
          server: serverId,
          tool: name,
          instance: GATEWAY_INSTANCE,
          configHash: plan.configHash,
          ...host
        }
        if (options?.principal !== undefined) fields.principal = options.principal.id
        return fields
      })
    const callTool = (
      input: CallInput,
      given?: CallOptions
    ): Effect.Effect<ToolResult, CallError | AuditError | InputRequired | StateRefused> =>
      withOwnHostInput(Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          const started = yield* Clock.currentTimeMillis
          const hostInput = yield* CurrentHostInput
          const options = yield* hookOptions(given)
          // The gateway names the call, so that its write-ahead row and its completion agree.
          const named = input.callId === undefined && typeof input === "object" && input !== null
            ? { ...input, callId: crypto.randomUUID() }
            : input
          const callId = typeof named.callId === "string" ? named.callId : ""
          const fixed = yield* base(input.serverId, input.name, callId, options, started)
          let args: AuditFields["args"] = undefined
          const argsOf = () => (args ??= captured(() =>
            redactJson(input.args ?? {}, redactionsOf(input.serverId, input.name))
          ))
          const row = (extra: Pick<AuditFields, "outcome" | "durationMs"> & Partial<AuditFields>) => {
            const fields: AuditFields = { ...fixed, ...extra }
            if (full) fields.args = argsOf()
            return trustedRecord(fields)
          }
          let rowId: number | undefined = undefined
          let failed: AuditError | undefined = undefined
          const begin = (call: ToolCall) =>
            store.begin(row({ outcome: PENDING, sent: true, durationMs: 0, digest: call.digest })).pipe(
              Effect.tap((id) => Effect.sync(() => (rowId = id))),
              Effect.tapError((error) => Effect.sync(() => (failed = error))),
              Effect.mapError(() =>
                new TransportError({
                  serverId: call.serverId,
                  detail: "the audit row could not be written, so the request was not sent"
                })
              ),
              Effect.asVoid
            )
          // The call's host answers its servers' own requests (InputRelay); a round left for the host ends the call with InputRequired.
          const relayed = yield* relay.begin(input.serverId, options)
          const exit = yield* Effect.exit(
            restore(
              relayed.provide(Effect.provideService(calls.callTool(named, options), CurrentWriteAhead, { begin }))
            )
          )
          if (failed !== undefined) return yield* Effect.fail(failed)
          const ended = yield* Clock.currentTimeMillis
          // Completes the call's row (written ahead, or recorded now if it never was) with how it ended, at `at`.
          const complete = (ending: Ending, at = ended) => {
            // A refused retry never reached the server, whatever the write-ahead row said before its state was checked.
            const sent = ending.outcome === REFUSED ? false : (ending.receipt?.sent ?? ending.sent)
            const fields: Pick<AuditFields, "outcome" | "durationMs"> & Partial<AuditFields> = {
              outcome: ending.outcome ?? ending.receipt?.outcome ?? "failed",
              sent,
              durationMs: at - started
            }
            if (ending.receipt !== undefined) receiptFields(fields, ending.receipt)
            // Asking the host is no answer: the row names none (the retry's row does).
            if (ending.outcome === INPUT_REQUIRED) delete fields.approval
            if (ending.error !== undefined) fields.error = ending.error
            if (full && ending.result !== undefined) {
              const { content, structuredContent, isError } = ending.result
              fields.result = captured(() => ({
                ...redactResultParts(
                  { content, ...(structuredContent === undefined ? {} : { structuredContent }) },
                  redactionsOf(input.serverId, input.name)
                ),
                isError: isError === true
              }))
            }
            if (full && ending.task !== undefined) {
              const result = ending.task
              fields.result = captured(() =>
                redactJson(result, redactionsOf(input.serverId, input.name)) as AuditFields["result"]
              )
            }
            const record = row(fields)
            return rowId === undefined ? store.record(record) : store.complete(rowId, record)
          }
          const sent = rowId !== undefined
          const task = Exit.isSuccess(exit) && rowId !== undefined
            ? taskAuditOf(yield* CurrentTaskAudit, exit.value.meta)
            : undefined
          if (Exit.isSuccess(exit) && task !== undefined) {
            // A server's task: the row stays pending until the task ends (TaskAudit.ts), and then says how.
            const receipt = exit.value.receipt
            task.settle = (ending) =>
              Effect.flatMap(Clock.currentTimeMillis, (now) =>
                complete(
                  { receipt, outcome: ending.outcome, sent: true, error: ending.error, task: ending.result },
                  now
                ))
            return exit.value
          }
          if (Exit.isSuccess(exit)) {
            yield* complete({ receipt: exit.value.receipt, sent, result: exit.value })
            return exit.value
          }
          const failure = Cause.findErrorOption(exit.cause)
          // A retry whose state the relay or the approval refused: nothing reached the server, and the host gets a JSON-RPC error.
          const stateRefused = relayed.refused() ??
            (failure._tag === "Some" && failure.value._tag === "Denied" ? refusedState(hostInput) : undefined)
          if (stateRefused !== undefined) {
            yield* complete({
              receipt: failure._tag === "Some" ? failure.value.receipt : undefined,
              outcome: REFUSED,
              sent: false,
              error: stateRefused.message
            })
            return yield* Effect.fail(stateRefused)
          }
          const relayAsked = relayed.raised()
          if (relayAsked !== undefined) {
            // A server's own request for the host, left for the host to answer (InputRelay); its retry is a new call and row.
            yield* complete({
              receipt: failure._tag === "Some" ? failure.value.receipt : undefined,
              outcome: INPUT_REQUIRED,
              sent
            })
            return yield* Effect.fail(relayAsked)
          }
          const asked = requiredInput(hostInput)
          if (failure._tag === "Some" && failure.value._tag === "Denied" && asked !== undefined) {
            // Not an ending yet: the host is asked (the approval form), and its retry is a new call and row.
            yield* complete({
              receipt: failure.value.receipt,
              outcome: INPUT_REQUIRED,
              sent,
              error: `${asked._tag}: ${asked.message}`
            })
            return yield* Effect.fail(asked)
          }
          if (failure._tag === "Some") {
            // A hook's deny reason may quote what it saw: the row keeps it only redacted.
            yield* complete({
              receipt: failure.value.receipt,
              sent,
              error: redactText(errorText(failure.value), redactionsOf(input.serverId, input.name))
            })
            return yield* Effect.fail(failure.value)
          }
          // Interrupted (the host cancelled, or the gateway is stopping) or a defect: the row still says so.
          yield* complete({ outcome: Cause.hasInterruptsOnly(exit.cause) ? "cancelled" : "failed", sent })
          return yield* Effect.failCause(exit.cause)
        })
      ))
    const refuse = (call: RefusedCall, options?: CallOptions): Effect.Effect<void, AuditError> =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const fields: AuditFields = {
          ...(yield* base(call.serverId, call.name, call.callId ?? crypto.randomUUID(), options, now)),
          outcome: REFUSED,
          sent: false,
          durationMs: 0,
          error: call.reason
        }
        if (full && call.args !== undefined) {
          fields.args = captured(() => redactJson(call.args, redactionsOf(call.serverId, call.name)))
        }
        return yield* store.record(trustedRecord(fields))
      })
    const decided = auditedDecision({ store, full, base, redactionsOf })
    // What core's hooks see of the request's host (HookAssigns.ts) is added to every operation's options.
    return GatewayCalls.of({
      callTool,
      refuse,
      listTools: (serverId, options) => withHookOptions(options, (given) => calls.listTools(serverId, given)),
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
          (given) => relayedRead(relay, serverId, given, calls.readResource(serverId, uri, given))
        ),
      getPrompt: (serverId, name, args, options) =>
        withHookOptions(
          options,
          (given) => relayedRead(relay, serverId, given, calls.getPrompt(serverId, name, args, given))
        )
    })
  })
