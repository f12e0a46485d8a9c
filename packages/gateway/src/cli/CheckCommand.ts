/**
 * `interlock check --config F`: validate a config and print its servers, exposed tools and rules. The work is in
 * CheckReport.ts; this module holds the flags.
 */
import { Option } from "effect"
import { Command, Flag } from "effect/cli"
import { checkConfig } from "./CheckReport.ts"
import { checkClaudeSettings } from "./ClaudeCheck.ts"
import { userFacing } from "./UserFacing.ts"

export { describeAudit, describePlan } from "./CheckReport.ts"

/** The check command. */
export const checkCommand = Command.make(
  "check",
  {
    config: Flag.String("config").pipe(
      Flag.withAlias("c"),
      Flag.withDescription("The config file to check"),
      Flag.optional
    ),
    connect: Flag.Boolean("connect").pipe(
      Flag.withDescription("Start the servers to list their exposed tools (--no-connect to skip)"),
      Flag.withDefault(true)
    ),
    claude: Flag.String("claude").pipe(
      Flag.withDescription(
        "Check a Claude Code settings.json for bridge hooks that could fail open, instead of a config"
      ),
      Flag.optional
    )
  },
  ({ config, connect, claude }) =>
    userFacing(Option.isSome(claude) ? checkClaudeSettings(claude.value) : checkConfig(config, connect))
).pipe(Command.withDescription("Validate a config and print its servers, exposed tools and rules; exit 1 on an error"))
