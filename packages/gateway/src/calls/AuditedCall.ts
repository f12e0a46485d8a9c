/**
 * One tool call through core's pipeline, audited: its row is written ahead just before the request goes downstream
 * (WriteAhead.ts) and completed with how the call ended, also when the host cancels. A call that never reached the
 * transport is recorded whole; a row that cannot be written fails the call with the AuditError (fail closed).
 */
import type { CallError, CallInput, CallOptions, ToolCall, ToolCallsShape, ToolResult } from "@interlock/core"
import { Cause, Clock, Effect, Exit, type Option } from "effect"
import type { AuditError } from "../audit/AuditStore.ts"
import { type AuditFields, PENDING, trustedRecord } from "../audit/GatewayAuditRecord.ts"
import { CurrentWriteAhead, writeAheadRow } from "../audit/WriteAhead.ts"
import { CredentialError } from "../credentials/CredentialError.ts"
import {
  authLabel,
  type CredentialStep,
  credentialStep,
  CurrentCredentialStep
} from "../credentials/CredentialTransport.ts"
import { redactJson, redactText } from "../governance/Redactor.ts"
import {
  type CallFields,
  type CallRows,
  captured,
  type EndFields,
  type Ending,
  endingFields,
  errorText,
  INPUT_REQUIRED,
  REFUSED
} from "./CallRows.ts"
import { hookOptions } from "./HookAssigns.ts"
import type { InputRelayShape, RelayedCall } from "./InputRelay.ts"
import { CurrentHostInput, type HostInput, type InputRequired, requiredInput } from "./InputRound.ts"
import { refusedState, type StateRefused } from "./StateRefused.ts"
import { CurrentTaskAudit, taskAuditOf } from "./TaskAudit.ts"

/**
 * What an audited call can fail with: core's failures, the audit's, a 2026-07-28 host's round or refused retry, and
 * a downstream credential that could not be had.
 */
export type AuditedCallError = CallError | AuditError | InputRequired | StateRefused | CredentialError

/** What audited calls are made of. */
export interface AuditedCallDeps {
  readonly calls: ToolCallsShape
  readonly rows: CallRows
  readonly relay: InputRelayShape
}

/** A call's own copy of the request's host input, which keys what the call records (InputRound.ts). */
const withOwnHostInput = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(
    CurrentHostInput,
    (input) => input === undefined ? effect : Effect.provideService(effect, CurrentHostInput, { ...input })
  )

/** The input with the call's id: the gateway names the call, so that its write-ahead row and its completion agree. */
const named = (input: CallInput): CallInput =>
  input.callId === undefined ? { ...input, callId: crypto.randomUUID() } : input

/**
 * What a row says of how its call was authenticated downstream: nothing for a call that sent no credential or was
 * refused one.
 */
const authFields = (step: CredentialStep): Partial<AuditFields> => {
  const form = step.refused === undefined ? authLabel(step) : undefined
  if (form === undefined) return {}
  return step.grant === undefined ? { authForm: form } : { authForm: form, authGrant: step.grant }
}

/** The error a failed call ends with, and the ending its row records. */
interface Failed {
  readonly error: AuditedCallError
  readonly ending: Ending
}

/**
 * How a failed call ends (undefined for an interruption or a defect), in the order the gateway decides it: no
 * downstream credential or a retry whose state was refused (nothing reached the server in either), a server's round
 * left for the host (InputRelay), the approval's ask of a 2026-07-28 host, or core's own failure (its text redacted: a
 * hook's deny reason may quote what it saw).
 */
const failedCall = (
  failure: Option.Option<CallError>,
  credential: CredentialStep,
  relayed: RelayedCall,
  host: HostInput | undefined,
  sent: boolean,
  redact: (text: string) => string
): Failed | undefined => {
  const receipt = failure._tag === "Some" ? failure.value.receipt : undefined
  const denied = failure._tag === "Some" && failure.value._tag === "Denied"
  const noCredential = credential.refused
  if (noCredential !== undefined) {
    // The host is told why; the error carries the receipt when core made one.
    const error = receipt === undefined ? noCredential : new CredentialError({ ...noCredential, receipt })
    return { error, ending: { receipt, outcome: REFUSED, sent: false, error: noCredential.message } }
  }
  const stateRefused = relayed.refused() ?? (denied ? refusedState(host) : undefined)
  if (stateRefused !== undefined) {
    return { error: stateRefused, ending: { receipt, outcome: REFUSED, sent: false, error: stateRefused.message } }
  }
  const relayAsked = relayed.raised()
  // Its retry is a new call and row.
  if (relayAsked !== undefined) return { error: relayAsked, ending: { receipt, outcome: INPUT_REQUIRED, sent } }
  const asked = requiredInput(host)
  if (denied && asked !== undefined) {
    // Not an ending yet: the host is asked (the approval form), and its retry is a new call and row.
    return {
      error: asked,
      ending: { receipt, outcome: INPUT_REQUIRED, sent, error: `${asked._tag}: ${asked.message}` }
    }
  }
  if (failure._tag === "None") return undefined
  return { error: failure.value, ending: { receipt, sent, error: redact(errorText(failure.value)) } }
}

/** The audited callTool of GatewayCalls. */
export const auditedCallTool = (deps: AuditedCallDeps) =>
(
  input: CallInput,
  given?: CallOptions
): Effect.Effect<ToolResult, AuditedCallError> =>
  withOwnHostInput(Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const { rows } = deps
      const started = yield* Clock.currentTimeMillis
      const host = yield* CurrentHostInput
      const options = yield* hookOptions(given)
      const call = named(input)
      const callId = typeof call.callId === "string" ? call.callId : ""
      const redactions = rows.redactionsOf(input.serverId, input.name)
      const fixed: CallFields = {
        ...(yield* rows.base(input.serverId, input.name, callId, options, started)),
        ...(rows.full ? { args: captured(() => redactJson(input.args ?? {}, redactions)) } : {})
      }
      // The transport's credential step (CredentialTransport.ts) says here whether the call was refused a credential,
      // and else how it was authenticated (known before the write-ahead row, which the transport writes after it).
      const credential = credentialStep(options?.principal)
      const row = (end: EndFields) => trustedRecord({ ...fixed, ...authFields(credential), ...end })
      const ahead = yield* writeAheadRow((sending: ToolCall) =>
        rows.store.begin(row({ outcome: PENDING, sent: true, durationMs: 0, digest: sending.digest }))
      )
      // The call's host answers its servers' own requests (InputRelay); a round left for the host ends the call with
      // InputRequired.
      const relayed = yield* deps.relay.begin(input.serverId, options)
      const exit = yield* Effect.exit(
        restore(
          relayed.provide(
            deps.calls.callTool(call, options).pipe(
              Effect.provideService(CurrentWriteAhead, ahead.step),
              Effect.provideService(CurrentCredentialStep, credential)
            )
          )
        )
      )
      const written = yield* ahead.state
      if (written._tag === "Failed") return yield* written.error
      const rowId = written._tag === "Written" ? written.id : undefined
      const sent = rowId !== undefined
      const ended = yield* Clock.currentTimeMillis
      // Completes the call's row (written ahead, or recorded now if it never was) with how it ended, at `at`.
      const complete = (ending: Ending, at = ended) => {
        const record = row(endingFields(ending, at - started, rows.full, redactions))
        return rowId === undefined ? rows.store.record(record) : rows.store.complete(rowId, record)
      }
      if (Exit.isSuccess(exit)) {
        const receipt = exit.value.receipt
        const task = sent ? taskAuditOf(yield* CurrentTaskAudit, exit.value.meta) : undefined
        // A server's task: the row stays pending until the task ends (TaskAudit.ts), and then says how.
        if (task !== undefined) {
          task.settle = (ending) =>
            Effect.flatMap(Clock.currentTimeMillis, (now) =>
              complete(
                { receipt, outcome: ending.outcome, sent: true, error: ending.error, task: ending.result },
                now
              ))
        } else {
          yield* complete({ receipt, sent, result: exit.value })
        }
        return exit.value
      }
      const failed = failedCall(
        Cause.findErrorOption(exit.cause),
        credential,
        relayed,
        host,
        sent,
        (text) => redactText(text, redactions)
      )
      if (failed !== undefined) {
        yield* complete(failed.ending)
        return yield* Effect.fail(failed.error)
      }
      // Interrupted (the host cancelled, or the gateway is stopping) or a defect: the row still says so.
      yield* complete({ outcome: Cause.hasInterruptsOnly(exit.cause) ? "cancelled" : "failed", sent })
      return yield* Effect.failCause(exit.cause)
    })
  ))
