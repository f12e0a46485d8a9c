/**
 * `interlock credentials list|revoke [--principal P] [--server S] [--config F]`: the principals' `auth.oauth` grants
 * kept in the config's `credentials.path`, shown without their tokens, and revoked there (a running gateway reads
 * the file on each use, so a revoked grant is gone at once: the principal's next call asks it to connect again).
 */
import { ConfigError } from "@interlock/core"
import { Console, Effect, Option, Redacted } from "effect"
import { Command, Flag } from "effect/cli"
import { formatTable } from "../config/TextTable.ts"
import { type GrantVault, openGrantVault } from "../credentials/GrantVault.ts"
import { configFlag } from "./ConfigFlag.ts"
import { planFrom } from "./Shared.ts"
import { userFacing } from "./UserFacing.ts"

const principalFlag = Flag.String("principal").pipe(
  Flag.withDescription("Only this principal's grants"),
  Flag.optional
)
const serverFlag = Flag.String("server").pipe(Flag.withDescription("Only the grants toward this server"), Flag.optional)

/** The config's vault, open for `use`; a config without `credentials.path` is an error that says so. */
const withVault = <A>(config: Option.Option<string>, use: (vault: GrantVault) => A) =>
  Effect.gen(function*() {
    const where = (yield* planFrom(config)).grantVault
    if (where === undefined) {
      return yield* new ConfigError({
        path: "credentials.path",
        detail: "is not set: the gateway holds its grants in memory only, and nothing here can list or revoke them"
      })
    }
    return yield* Effect.acquireUseRelease(
      Effect.try({
        try: () => openGrantVault(where.path, Redacted.value(where.key)),
        catch: () => new ConfigError({ path: "credentials.path", detail: `cannot open ${where.path}` })
      }),
      (vault) => Effect.sync(() => use(vault)),
      (vault) => Effect.sync(() => vault.close())
    )
  })

const filterOf = (principal: Option.Option<string>, server: Option.Option<string>) => ({
  ...Option.match(principal, { onNone: () => ({}), onSome: (value) => ({ principal: value }) }),
  ...Option.match(server, { onNone: () => ({}), onSome: (value) => ({ server: value }) })
})

const list = Command.make(
  "list",
  { config: configFlag("The gateway's config"), principal: principalFlag, server: serverFlag },
  ({ config, principal, server }) =>
    userFacing(Effect.gen(function*() {
      const rows = yield* withVault(config, (vault) => vault.list(filterOf(principal, server)))
      if (rows.length === 0) return yield* Console.log("no grants")
      const table = formatTable([
        ["PRINCIPAL", "SERVER", "GRANT", "OBTAINED", "STATE"],
        ...rows.map((row) => [
          row.principal,
          row.server,
          row.id,
          new Date(row.obtainedAtMs).toISOString(),
          row.opens ? "ok" : "does not open with credentials.key"
        ])
      ])
      for (const line of table) yield* Console.log(line)
    }))
).pipe(Command.withDescription("List the grants (principal, server, grant id, when), never their tokens"))

const revoke = Command.make(
  "revoke",
  { config: configFlag("The gateway's config"), principal: principalFlag, server: serverFlag },
  ({ config, principal, server }) =>
    userFacing(Effect.gen(function*() {
      if (Option.isNone(principal) && Option.isNone(server)) {
        return yield* new ConfigError({ path: "(flags)", detail: "give --principal, --server or both" })
      }
      const count = yield* withVault(config, (vault) => vault.revoke(filterOf(principal, server)))
      yield* Console.log(`revoked ${count} grant${count === 1 ? "" : "s"}`)
    }))
).pipe(Command.withDescription("Revoke the grants of a principal and/or toward a server: the next call connects again"))

/** The credentials command. */
export const credentialsCommand = Command.make("credentials").pipe(
  Command.withDescription("List or revoke the principals' auth.oauth grants kept in credentials.path"),
  Command.withSubcommands([list, revoke])
)
