/** `interlock replay --db F --config CANDIDATE`: shadow mode over recorded calls. */
import { Console, Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { existsSync } from "node:fs"
import { AuditError } from "../AuditStore.ts"
import { replay, type ReplayChange } from "../Replay.ts"
import * as SqliteAuditStore from "../SqliteAuditStore.ts"
import { loadFrom, userFacing } from "./Shared.ts"

/** One change as a line of text. */
export const formatChange = (change: ReplayChange): string =>
  `#${change.id ?? "?"} ${new Date(change.time).toISOString()} ${change.principal ?? "-"} ${change.server}/${change.tool}: ` +
  `${change.before} -> ${change.after}${change.rule === undefined ? "" : ` (rule ${change.rule})`}${change.argsCaptured ? "" : " [args not captured]"}`

/** The replay command. */
export const replayCommand = Command.make(
  "replay",
  {
    db: Flag.String("db").pipe(Flag.withDescription("The audit database to replay"), Flag.withDefault(".interlock/audit.db")),
    config: Flag.String("config").pipe(Flag.withDescription("The candidate config")),
    limit: Flag.Int("limit").pipe(Flag.withDescription("How many recent calls to replay"), Flag.withDefault(10_000)),
    json: Flag.Boolean("json").pipe(Flag.withDescription("One JSON object per changed call"), Flag.withDefault(false))
  },
  ({ config, db, json, limit }) =>
    userFacing(Effect.gen(function*() {
      if (!existsSync(db)) return yield* new AuditError({ operation: "open", detail: `${db} does not exist` })
      const candidate = yield* loadFrom(Option.some(config))
      const store = SqliteAuditStore.open(db)
      const rows = yield* Effect.ensuring(store.query({ limit }), Effect.sync(() => store.close()))
      const changes = yield* replay([...rows].reverse(), candidate)
      for (const change of changes) yield* Console.log(json ? JSON.stringify(change) : formatChange(change))
      yield* Console.error(`${rows.length} recorded calls replayed; ${changes.length} would be decided differently.`)
    }))
).pipe(Command.withDescription("Shadow mode: re-decide recorded calls under a candidate config and print those whose decision would change"))
