/** `interlock replay [--db F | --postgres URL] --config CANDIDATE`: shadow mode over recorded calls. */
import { Console, Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { replay, type ReplayChange } from "../Replay.ts"
import { auditSourceFlags, openAuditSource } from "./AuditSource.ts"
import { loadFrom, userFacing } from "./Shared.ts"

/** One change as a line of text. */
export const formatChange = (change: ReplayChange): string =>
  `#${change.id ?? "?"} ${new Date(change.time).toISOString()} ${change.principal ?? "-"} ${change.server}/${change.tool}: ` +
  `${change.before} -> ${change.after}${change.rule === undefined ? "" : ` (rule ${change.rule})`}${change.argsCaptured ? "" : " [args not captured]"}`

/** The replay command. */
export const replayCommand = Command.make(
  "replay",
  {
    ...auditSourceFlags("to replay"),
    config: Flag.String("config").pipe(Flag.withDescription("The candidate config")),
    limit: Flag.Int("limit").pipe(Flag.withDescription("How many recent calls to replay"), Flag.withDefault(10_000)),
    json: Flag.Boolean("json").pipe(Flag.withDescription("One JSON object per changed call"), Flag.withDefault(false))
  },
  ({ config, db, json, limit, postgres }) =>
    userFacing(Effect.gen(function*() {
      const store = yield* openAuditSource({ db, postgres })
      const candidate = yield* loadFrom(Option.some(config))
      const rows = yield* store.query({ limit })
      const changes = yield* replay([...rows].reverse(), candidate)
      for (const change of changes) yield* Console.log(json ? JSON.stringify(change) : formatChange(change))
      yield* Console.error(`${rows.length} recorded calls replayed; ${changes.length} would be decided differently.`)
    }).pipe(Effect.scoped))
).pipe(Command.withDescription("Shadow mode: re-decide recorded calls under a candidate config and print those whose decision would change"))
