/** Where `interlock audit` and `interlock replay` read: a SQLite file (`--db`) or Postgres (`--postgres`), exactly one. */
import { ConfigError } from "@interlock/core"
import { Effect, Option, type Scope } from "effect"
import { Flag } from "effect/cli"
import { existsSync } from "node:fs"
import { AuditError, type AuditStoreShape } from "../AuditStore.ts"
import * as PgAuditStore from "../PgAuditStore.ts"
import { readPostgresUrl } from "../Plan.ts"
import * as SqliteAuditStore from "../SqliteAuditStore.ts"

/** The default SQLite file when neither flag is given. */
export const DEFAULT_DB = ".interlock/audit.db"

/** The two flags; `what` ends their descriptions ("to read", "to replay"). */
export const auditSourceFlags = (what: string) => ({
  db: Flag.String("db").pipe(Flag.withDescription(`The SQLite audit database ${what} (default ${DEFAULT_DB})`), Flag.optional),
  postgres: Flag.String("postgres").pipe(
    Flag.withDescription(`The Postgres audit store ${what} instead of --db: a postgres:// URL, or env:NAME to read it from a variable (keeps the password off the command line)`),
    Flag.optional
  )
})

/** Opens the store the flags name, in the current scope. */
export const openAuditSource = (flags: {
  readonly db: Option.Option<string>
  readonly postgres: Option.Option<string>
}): Effect.Effect<AuditStoreShape, AuditError | ConfigError, Scope.Scope> =>
  Effect.gen(function*() {
    if (Option.isSome(flags.postgres)) {
      if (Option.isSome(flags.db)) return yield* new ConfigError({ path: "--postgres", detail: "give either --db or --postgres, not both" })
      const url = readPostgresUrl(flags.postgres.value, "--postgres")
      if (url instanceof ConfigError) return yield* url
      return yield* PgAuditStore.make(url)
    }
    const db = Option.getOrElse(flags.db, () => DEFAULT_DB)
    if (!existsSync(db)) return yield* new AuditError({ operation: "open", detail: `${db} does not exist` })
    return yield* SqliteAuditStore.scoped(db)
  })
