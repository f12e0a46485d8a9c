/**
 * The audit row of a tools/call a server answered with a task (SEP-2663): the call's row stays
 * `pending` when the call returns, and is completed once, when the task ends (its outcome,
 * `cancelled` when the host cancelled it). The front provides GatewayCalls a holder as
 * CurrentTaskAudit; GatewayCalls fills in how to complete the row instead of completing it.
 */
import { TASK_META } from "@interlock/mcp"
import { Context, type Effect } from "effect"
import type { AuditError } from "../audit/AuditStore.ts"

/** How a task ended, for its call's row. */
export interface TaskEnding {
  readonly outcome: "ok" | "failed" | "cancelled"
  /** Interlock's words (never the server's data). */
  readonly error?: string
  /** The task's result, for a row with `capture: "full"` (redacted there). */
  readonly result?: {
    readonly content: ReadonlyArray<unknown>
    readonly structuredContent?: unknown
    readonly isError?: boolean
  }
}

/** The holder: `settle` completes the row, set by GatewayCalls when the call's result is a task. */
export interface TaskAudit {
  settle?: (ending: TaskEnding) => Effect.Effect<void, AuditError>
}

/** The current call's TaskAudit holder (only a front that can hand on tasks provides one). */
export const CurrentTaskAudit = Context.Reference<TaskAudit | undefined>("@interlock/gateway/CurrentTaskAudit", {
  defaultValue: () => undefined
})

/** The call's holder when its result is a server's task and its front passed one; otherwise undefined. */
export const taskAuditOf = (holder: TaskAudit | undefined, meta: unknown): TaskAudit | undefined => {
  const isTask = typeof meta === "object" && meta !== null && TASK_META in meta
  return isTask ? holder : undefined
}
