/**
 * The audit rows of GatewayCalls: the fields every row of the gateway carries (time, id, server,
 * name, principal, the host's client and id of the call, the config's hash), what it captures with
 * `capture: "full"` (always redacted), and the fields of a call's ending (its receipt's decisions).
 */
import type { CallError, OperationOptions, Receipt, ToolResult } from "@interlock/core"
import { Effect } from "effect"
import type { AuditStoreShape } from "../audit/AuditStore.ts"
import { type AuditFields, GATEWAY_INSTANCE } from "../audit/GatewayAuditRecord.ts"
import type { Plan } from "../config/Plan.ts"
import { redactResultParts } from "../governance/ContentRedaction.ts"
import { detectAll, type Redaction, redactionsFor, redactJson } from "../governance/Redactor.ts"
import { clientName, CurrentHostClient, CurrentHostToolUseId } from "./HostClient.ts"
import type { TaskEnding } from "./TaskAudit.ts"

/** The outcome of a call's row when the call ended asking the host for input (a 2026-07-28 approval). */
export const INPUT_REQUIRED = "input_required"

/** The outcome of a call's row when the gateway refused it (before the pipeline, or a retry whose state it refused). */
export const REFUSED = "refused"

/** What a captured value becomes if redacting it fails (the redactor is iterative and should not). */
export const NOT_CAPTURED = "[not captured: the value could not be redacted]"

/** Defence in depth: a row says "not captured" rather than being lost or holding an unredacted value. */
export const captured = <A>(redact: () => A): A | typeof NOT_CAPTURED => {
  try {
    return redact()
  } catch {
    return NOT_CAPTURED
  }
}

/** What the gateway's rows say about the call they record, whatever its outcome. */
export type CallFields = Pick<AuditFields, "time" | "callId" | "server" | "tool"> & Partial<AuditFields>

/** The fields of a row's ending: its outcome and duration, and whatever else it learnt. */
export type EndFields = Pick<AuditFields, "outcome" | "durationMs"> & Partial<AuditFields>

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

/** The rows of one gateway's plan, over its store. */
export interface CallRows {
  readonly store: AuditStoreShape
  /** Whether rows capture what was asked and answered (`audit.capture: "full"`). */
  readonly full: boolean
  /**
   * The redactions of what a row captures about `name` on `serverId`: the configured ones and the built-in detectors.
   */
  readonly redactionsOf: (serverId: string, name: string) => ReadonlyArray<Redaction>
  /** The fields every row carries, for the current request's host. */
  readonly base: (
    serverId: string,
    name: string,
    callId: string,
    options: OperationOptions | undefined,
    started: number
  ) => Effect.Effect<CallFields>
}

/** The rows of `plan` over `store`. */
export const callRows = (plan: Plan, store: AuditStoreShape): CallRows => ({
  store,
  full: plan.audit.capture === "full",
  // Captured data is always scrubbed by the built-in detectors, on top of the configured redactions.
  redactionsOf: (serverId, name) => [...redactionsFor(plan.redactions, serverId, name), ...detectAll()],
  base: (serverId, name, callId, options, started) =>
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
})

/** How a call ended, for its row: core's receipt when it got one, else what the gateway saw. */
export interface Ending {
  readonly receipt?: Receipt | undefined
  readonly outcome?: string
  readonly sent: boolean
  readonly error?: string | undefined
  readonly result?: ToolResult
  /** A server task's result, when the row of the call that created it is completed (TaskAudit.ts). */
  readonly task?: TaskEnding["result"]
}

/** A failed call's error as its row says it: the message of a refusal or timeout, the tag of anything else. */
export const errorText = (error: CallError): string =>
  error._tag === "Denied" || error._tag === "HookFailed" || error._tag === "Timeout"
    ? `${error._tag}: ${error.message}`
    : error._tag

const receiptFields = (receipt: Receipt): Partial<AuditFields> => {
  const fields: Partial<AuditFields> = { receipt }
  if (receipt.digest !== undefined) fields.digest = receipt.digest
  if (receipt.policy !== undefined) {
    fields.decision = receipt.policy.decision
    if (receipt.policy.rule !== undefined) fields.rule = receipt.policy.rule
  }
  if (receipt.approval !== undefined) {
    const { by, decision, source } = receipt.approval
    fields.approval = `${decision}:${source}${by === undefined ? "" : `:${by}`}`
  }
  return fields
}

/**
 * The fields of a call's ending, `durationMs` after it started; with `full`, its result (or its
 * task's) captured under `redactions`.
 */
export const endingFields = (
  ending: Ending,
  durationMs: number,
  full: boolean,
  redactions: ReadonlyArray<Redaction>
): EndFields => {
  // A refused retry never reached the server, whatever the write-ahead row said before its state was checked.
  const sent = ending.outcome === REFUSED ? false : (ending.receipt?.sent ?? ending.sent)
  const fields: EndFields = {
    outcome: ending.outcome ?? ending.receipt?.outcome ?? "failed",
    sent,
    durationMs,
    ...(ending.receipt === undefined ? {} : receiptFields(ending.receipt))
  }
  // Asking the host is no answer: the row names none (the retry's row does).
  if (ending.outcome === INPUT_REQUIRED) delete fields.approval
  if (ending.error !== undefined) fields.error = ending.error
  if (full && ending.result !== undefined) {
    const { content, structuredContent, isError } = ending.result
    fields.result = captured(() => ({
      ...redactResultParts({ content, ...(structuredContent === undefined ? {} : { structuredContent }) }, redactions),
      isError: isError === true
    }))
  }
  if (full && ending.task !== undefined) {
    const result = ending.task
    fields.result = captured(() => redactJson(result, redactions) as AuditFields["result"])
  }
  return fields
}
