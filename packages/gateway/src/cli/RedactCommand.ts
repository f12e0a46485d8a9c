/**
 * `interlock redact --config F --tool S/N`: the flags; the work is in RedactFilter.ts (which Cli.ts also runs
 * directly).
 */
import { Command, Flag } from "effect/cli"
import { configFlag } from "./ConfigFlag.ts"
import { redactFilter } from "./RedactFilter.ts"

/** The redact command. */
export const redactCommand = Command.make(
  "redact",
  {
    config: configFlag("The config whose redactions apply"),
    tool: Flag.String("tool").pipe(
      Flag.withDescription("The tool (server/name, such as claude/Bash) whose redactions apply")
    )
  },
  ({ config, tool }) => redactFilter(config, tool)
).pipe(
  Command.withDescription(
    "Copy stdin to stdout through the config's redactions for one tool; a config error prints nothing of stdin " +
      "and exits 2"
  )
)
