/**
 * The audit of decisions that lead to no read or get of their own: a resource subscription and a
 * completion, decided as the read or get they lead to. Each gets one row, named by its method:
 * `ok` (and sent) when allowed, `refused` (not sent) when the hooks or the policy refused it.
 */
import type { Denied, HookFailed, JsonObject, OperationOptions } from "@interlock/core"
import { Cause, Clock, Effect, Exit } from "effect"
import type { AuditError } from "../audit/AuditStore.ts"
import { type AuditFields, trustedRecord } from "../audit/GatewayAuditRecord.ts"
import type { DecidedOperation } from "../audit/OperationRows.ts"
import { type Redaction, redactJson, redactText } from "../governance/Redactor.ts"
import type { CallRows } from "./CallRows.ts"

export type { DecidedOperation } from "../audit/OperationRows.ts"

/** What the audit of decisions is built from: GatewayCalls' rows (their store, fields and redactions). */
export type OperationAuditDeps = Pick<CallRows, "store" | "full" | "base" | "redactionsOf">

/** The decision's row fields: a refusal names the policy's rule and Interlock's reason, redacted. */
const refusalFields = (error: Denied | HookFailed, redactions: ReadonlyArray<Redaction>): Partial<AuditFields> => {
  const fields: Partial<AuditFields> = { error: redactText(`${error._tag}: ${error.message}`, redactions) }
  if (error._tag === "Denied" && error.reason._tag === "PolicyDenied") {
    fields.decision = "deny"
    if (error.reason.rule !== undefined) fields.rule = error.reason.rule
  }
  return fields
}

/**
 * Runs `decision` and records its row; the row is committed before the operation goes on (or its
 * refusal is answered). `subject` is what the row captures with `capture: "full"` (redacted).
 * A row that cannot be written fails the operation with its AuditError (fail closed).
 */
export const auditedDecision = (deps: OperationAuditDeps) =>
<E extends Denied | HookFailed>(
  operation: DecidedOperation,
  serverId: string,
  subject: JsonObject,
  options: OperationOptions | undefined,
  decision: Effect.Effect<void, E>
): Effect.Effect<void, E | AuditError> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const started = yield* Clock.currentTimeMillis
      const exit = yield* Effect.exit(restore(decision))
      const ended = yield* Clock.currentTimeMillis
      const redactions = deps.redactionsOf(serverId, operation)
      const fields: AuditFields = {
        ...(yield* deps.base(serverId, operation, crypto.randomUUID(), options, started)),
        durationMs: ended - started,
        outcome: Exit.isSuccess(exit) ? "ok" : Cause.hasInterruptsOnly(exit.cause) ? "cancelled" : "refused",
        sent: Exit.isSuccess(exit)
      }
      if (deps.full) fields.args = redactJson(subject, redactions)
      if (Exit.isFailure(exit)) {
        const failure = Cause.findErrorOption(exit.cause)
        if (failure._tag === "Some") Object.assign(fields, refusalFields(failure.value, redactions))
      }
      yield* deps.store.record(trustedRecord(fields))
      return yield* exit
    })
  )
