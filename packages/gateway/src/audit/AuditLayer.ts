/**
 * The audit store a plan asks for. Postgres (`@effect/sql-pg`) is imported only when the plan names
 * a Postgres store, so a command that writes SQLite, such as `interlock claude-hook`, never loads it.
 */
import { Effect, Layer } from "effect"
import type { Plan } from "../config/Plan.ts"
import { type AuditError, AuditStore } from "./AuditStore.ts"
import * as SqliteAuditStore from "./SqliteAuditStore.ts"

/** The audit store a plan asks for: Postgres at audit.postgres, SQLite at audit.path, or none. */
export const auditLayer = (plan: Plan): Layer.Layer<AuditStore, AuditError> => {
  const postgres = plan.audit.postgres
  if (postgres !== undefined) {
    return Layer.unwrap(Effect.map(Effect.promise(() => import("./PgAuditStore.ts")), (pg) => pg.layer(postgres)))
  }
  return plan.audit.path === undefined ? AuditStore.disabled : SqliteAuditStore.layer(plan.audit.path)
}
