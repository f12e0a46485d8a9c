/**
 * The AuditStore service: where the gateway writes one row per call. The row is write-ahead: it is committed (outcome
 * `pending`) before the request goes downstream, and completed with the outcome before the call's response goes to the
 * host; calls refused before they run get a row too. The SQLite store (SqliteAuditStore) is the default; the Postgres
 * store (PgAuditStore) serves several gateway replicas; any other store replaces them by providing a Layer.
 */
import { Context, Effect, Layer, Schema } from "effect"
import type { AuditBucket, AuditQuery, AuditRecord } from "./GatewayAuditRecord.ts"

/** The audit store could not be opened, written or read. Carries no row content. */
export class AuditError extends Schema.TaggedError<AuditError>()("AuditError", {
  operation: Schema.Literals(["open", "write", "read"]),
  detail: Schema.String
}) {
  override get message(): string {
    return `audit store ${this.operation} failed: ${this.detail}`
  }
}

/** The service interface. */
export interface AuditStoreShape {
  /** Writes one row; it is committed when the Effect succeeds. */
  readonly record: (row: AuditRecord) => Effect.Effect<void, AuditError>
  /** Writes a write-ahead row (outcome `pending`); committed when the Effect succeeds, with the row's id. */
  readonly begin: (row: AuditRecord) => Effect.Effect<number, AuditError>
  /** Replaces every field of the row `id` that {@link begin} wrote (the completed row). */
  readonly complete: (id: number, row: AuditRecord) => Effect.Effect<void, AuditError>
  /** Rows, newest first. */
  readonly query: (query?: AuditQuery) => Effect.Effect<ReadonlyArray<AuditRecord>, AuditError>
  /** Calls and denials per tool and time bucket since `since` (epoch ms). */
  readonly buckets: (since: number, bucketMs: number) => Effect.Effect<ReadonlyArray<AuditBucket>, AuditError>
}

/** Where audit rows go. */
export class AuditStore extends Context.Service<AuditStore, AuditStoreShape>()("@interlock/gateway/AuditStore") {
  /** Records nothing (audit disabled). */
  static readonly disabled: Layer.Layer<AuditStore> = Layer.succeed(AuditStore, {
    record: () => Effect.void,
    begin: () => Effect.succeed(0),
    complete: () => Effect.void,
    query: () => Effect.succeed([]),
    buckets: () => Effect.succeed([])
  })
}
