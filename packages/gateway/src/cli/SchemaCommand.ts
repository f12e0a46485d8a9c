/**
 * `interlock schema`: print the JSON Schema of the config file (the published
 * interlock.config.schema.json). `schema --cedar [--config F]`: start the config's servers and
 * print the Cedar schema generated from their listing (CedarCheck.ts), for writing policies.
 */
import { Console, Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { jsonSchema } from "../config/Config.ts"
import { configFlag } from "./ConfigFlag.ts"
import { planFrom } from "./Shared.ts"
import { userFacing } from "./UserFacing.ts"

/** The schema command. */
export const schemaCommand = Command.make(
  "schema",
  {
    cedar: Flag.Boolean("cedar").pipe(
      Flag.withDescription("Print the Cedar schema of the config's live tool listing instead"),
      Flag.withDefault(false)
    ),
    config: configFlag("With --cedar: the config whose servers are listed (default: interlock.config.* here)")
  },
  ({ cedar, config }) =>
    cedar
      ? userFacing(Effect.gen(function*() {
        const { cedarSchemaOf } = yield* Effect.promise(() => import("./CedarCheck.ts"))
        yield* Console.log(yield* cedarSchemaOf(yield* planFrom(config)))
      }))
      : Console.log(JSON.stringify(jsonSchema(), null, 2))
).pipe(
  Command.withDescription(
    "Print the JSON Schema of interlock.config.json, for editors (--cedar: the Cedar schema of the live listing)"
  )
)
