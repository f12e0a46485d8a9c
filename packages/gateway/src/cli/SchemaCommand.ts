/** `interlock schema`: print the JSON Schema of the config file (the published interlock.config.schema.json). */
import { Console } from "effect"
import { Command } from "effect/cli"
import { jsonSchema } from "../config/Config.ts"

/** The schema command. */
export const schemaCommand = Command.make("schema", {}, () => Console.log(JSON.stringify(jsonSchema(), null, 2))).pipe(
  Command.withDescription("Print the JSON Schema of interlock.config.json, for editors")
)
