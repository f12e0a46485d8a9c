/**
 * `interlock replay [--config F] [--candidate C] [--db F | --postgres URL]`: shadow mode over
 * recorded calls. It reads the store F's gateway writes (or --db/--postgres) and re-decides the
 * recorded calls under C (default F itself, which then reports no changes); with `--baseline B`,
 * against B's decisions instead of the recorded ones (JSON rules against Cedar, Cedar against Cedar).
 */
import { Console, Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { cellText } from "../config/TextTable.ts"
import { replay, replayable, type ReplayChange } from "../governance/Replay.ts"
import { auditSourceFlags, openAuditSource } from "./AuditSource.ts"
import { configFlag } from "./ConfigFlag.ts"
import { loadFrom } from "./Shared.ts"
import { userFacing } from "./UserFacing.ts"

/** One change as a line of text. */
export const formatChange = (change: ReplayChange): string =>
  `#${change.id ?? "?"} ${new Date(change.time).toISOString()} ${cellText(change.principal ?? "-")} ${
    cellText(`${change.server}/${change.tool}`)
  }: ` +
  `${change.before} -> ${change.after}${change.rule === undefined ? "" : ` (rule ${cellText(change.rule)})`}${
    change.argsCaptured ? "" : " [args not captured]"
  }`

/** The one-line summary: how many rows were read, re-decided, skipped, and changed. */
export const summary = (read: number, skipped: number, changed: number): string =>
  `${read} recorded call${read === 1 ? "" : "s"} read, ${read - skipped} re-decided` +
  `${
    skipped === 0 ? "" : ` (${skipped} never reached the policy: denied by a hook, refused, or not a policy event)`
  }; ` +
  `${changed} would be decided differently.`

/** The replay command. */
export const replayCommand = Command.make(
  "replay",
  {
    config: configFlag(
      "The config whose audit store is read, and the candidate unless --candidate (default: interlock.config.* here)"
    ),
    candidate: Flag.String("candidate").pipe(
      Flag.withDescription("The candidate config to re-decide the recorded calls under (default: --config)"),
      Flag.optional
    ),
    baseline: Flag.String("baseline").pipe(
      Flag.withDescription("Compare the candidate with this config's policy instead of the recorded decisions"),
      Flag.optional
    ),
    ...auditSourceFlags("to replay"),
    limit: Flag.Int("limit").pipe(Flag.withDescription("How many recent calls to replay"), Flag.withDefault(10_000)),
    json: Flag.Boolean("json").pipe(Flag.withDescription("One JSON object per changed call"), Flag.withDefault(false))
  },
  ({ baseline, candidate, config, db, json, limit, postgres }) =>
    userFacing(
      Effect.gen(function*() {
        const store = yield* openAuditSource({ config, db, postgres })
        const decider = yield* loadFrom(Option.orElse(candidate, () => config))
        const against = Option.isSome(baseline) ? yield* loadFrom(baseline) : undefined
        const rows = [...(yield* store.query({ limit }))].reverse()
        const changes = yield* replay(rows, decider, against)
        for (const change of changes) yield* Console.log(json ? JSON.stringify(change) : formatChange(change))
        yield* Console.error(summary(rows.length, rows.filter((row) => !replayable(row)).length, changes.length))
      }).pipe(Effect.scoped)
    )
).pipe(
  Command.withDescription(
    "Shadow mode: re-decide recorded calls under a candidate config's policy and print those whose decision " +
      "would change"
  )
)
