/**
 * The audit sink of the bridge: one record per decision, core's AuditRecord, the record the
 * gateway writes for its own calls, so that both go to the same store alike. A record holds what
 * was decided and by whom (rule, hooks, the answer in `claudeDecision`), never the arguments or
 * results of a call.
 */
import type { AuditRecord } from "@interlock/core"
import { Context, Effect, Layer } from "effect"

/** The service interface: record one row. A failure is reported; an allow whose row fails becomes a deny. */
export interface AuditSinkShape {
  readonly record: (row: AuditRecord) => Effect.Effect<void, unknown>
}

/** Where the bridge's audit records go. The gateway provides its audit store; tests use `memory`. */
export class AuditSink extends Context.Service<AuditSink, AuditSinkShape>()("@interlock/claude/AuditSink") {
  /** Rows go to `record` (the gateway passes its audit store's insert). */
  static layer(record: AuditSinkShape["record"]): Layer.Layer<AuditSink> {
    return Layer.succeed(AuditSink, { record })
  }

  /** Discards every row. */
  static readonly none: Layer.Layer<AuditSink> = Layer.succeed(AuditSink, { record: () => Effect.void })

  /** Keeps rows in memory: the Layer and the array it appends to. */
  static memory(): { readonly layer: Layer.Layer<AuditSink>; readonly rows: Array<AuditRecord> } {
    const rows: Array<AuditRecord> = []
    return { rows, layer: Layer.succeed(AuditSink, { record: (row) => Effect.sync(() => void rows.push(row)) }) }
  }
}
