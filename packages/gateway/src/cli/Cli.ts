/** The `interlock` command line: serve, check, audit, replay, claude-hook, schema. */
import { Command } from "effect/cli"
import { VERSION } from "../Gateway.ts"
import { auditCommand } from "./AuditCommand.ts"
import { checkCommand } from "./CheckCommand.ts"
import { claudeHookCommand } from "./ClaudeHookCommand.ts"
import { initCommand } from "./InitCommand.ts"
import { replayCommand } from "./ReplayCommand.ts"
import { schemaCommand } from "./SchemaCommand.ts"
import { serveCommand } from "./ServeCommand.ts"

/** The root command. */
export const interlock = Command.make("interlock").pipe(
  Command.withDescription("Interlock: typed hooks and one policy around every MCP tool call"),
  Command.withSubcommands([initCommand, serveCommand, checkCommand, auditCommand, replayCommand, claudeHookCommand, schemaCommand])
)

/** Runs the CLI on the process's arguments. */
export const run = Command.run(interlock, { version: VERSION })
