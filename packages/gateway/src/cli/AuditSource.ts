/**
 * Where `interlock audit` and `interlock replay` read: the store a config writes (`--config`, or
 * the interlock.config.* found here, resolved by Plan's `auditPlan` exactly as the gateway and
 * `claude-hook` resolve it), or a store named outright: a SQLite file (`--db`) or Postgres
 * (`--postgres`). At most one of --db and --postgres.
 */
import { ConfigError } from "@interlock/core"
import { Effect, Option, type Scope } from "effect"
import { Flag } from "effect/cli"
import { existsSync } from "node:fs"
import { AuditError, type AuditStoreShape } from "../audit/AuditStore.ts"
import * as PgAuditStore from "../audit/PgAuditStore.ts"
import * as SqliteAuditStore from "../audit/SqliteAuditStore.ts"
import type { LoadedConfig } from "../config/ConfigLoader.ts"
import { auditPlan, readPostgresUrl } from "../runtime/PlanBuilder.ts"
import { loadFrom } from "./Shared.ts"

/** The --db and --postgres flags; `what` ends their descriptions ("to read", "to replay"). */
export const auditSourceFlags = (what: string) => ({
  db: Flag.String("db").pipe(
    Flag.withDescription(`The SQLite audit database ${what}, instead of the config's store`),
    Flag.optional
  ),
  postgres: Flag.String("postgres").pipe(
    Flag.withDescription(
      `The Postgres audit store ${what} instead of --db or the config's store: a postgres:// URL, or env:NAME to ` +
        `read it from a variable (keeps the password off the command line)`
    ),
    Flag.optional
  )
})

/** What names the store: the flags, and the config (given or found) when neither flag is set. */
export interface AuditSourceFlags {
  readonly db: Option.Option<string>
  readonly postgres: Option.Option<string>
  readonly config: Option.Option<string>
}

const openSqlite = (file: string): Effect.Effect<AuditStoreShape, AuditError, Scope.Scope> =>
  existsSync(file)
    ? SqliteAuditStore.scoped(file)
    : Effect.fail(
      new AuditError({ operation: "open", detail: `${file} does not exist (no call has been audited there yet)` })
    )

/** Opens the store a loaded config's gateway writes, in the current scope. */
export const openConfigStore = (
  loaded: LoadedConfig
): Effect.Effect<AuditStoreShape, AuditError | ConfigError, Scope.Scope> =>
  Effect.gen(function*() {
    const plan = auditPlan(loaded)
    if (plan instanceof ConfigError) return yield* plan
    const where = loaded.file ?? "the config"
    if (plan.postgres !== undefined) return yield* PgAuditStore.make(plan.postgres)
    if (plan.path === undefined) {
      return yield* new ConfigError({
        path: "audit.enabled",
        detail: `is false in ${where}: its gateway writes no audit rows`
      })
    }
    if (plan.path === ":memory:") {
      return yield* new ConfigError({
        path: "audit.path",
        detail: `is :memory: in ${where}: its rows end with its gateway, so there is nothing to read`
      })
    }
    return yield* openSqlite(plan.path)
  })

/** Opens the store the flags name, in the current scope. */
export const openAuditSource = (
  flags: AuditSourceFlags
): Effect.Effect<AuditStoreShape, AuditError | ConfigError, Scope.Scope> =>
  Effect.gen(function*() {
    if (Option.isSome(flags.postgres)) {
      if (Option.isSome(flags.db)) {
        return yield* new ConfigError({ path: "--postgres", detail: "give either --db or --postgres, not both" })
      }
      const url = readPostgresUrl(flags.postgres.value, "--postgres")
      if (url instanceof ConfigError) {
        return yield* url
      }
      return yield* PgAuditStore.make(url)
    }
    if (Option.isSome(flags.db)) return yield* openSqlite(flags.db.value)
    const loaded = yield* loadFrom(flags.config).pipe(Effect.mapError((error) =>
      error.path === "--config"
        ? new ConfigError({ path: error.path, detail: `${error.detail}; or name the store with --db or --postgres` })
        : error
    ))
    return yield* openConfigStore(loaded)
  })
