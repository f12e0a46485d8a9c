/**
 * The `interlock` command line. Each command lives in its own module and is loaded only when it
 * runs: `interlock claude-hook` loads the claude-hook command and what it imports, never the HTTP
 * front, the MCP client or Postgres. The root help and an unknown command load them all, so that
 * effect/cli lists every command with its description.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import { VERSION } from "../Version.ts"

/** The root command's description (the first line of `interlock --help`). */
export const DESCRIPTION = "Interlock: typed hooks and one policy around every MCP tool call"

/** Every command, in the order the help lists them, and how to load it. Adding a command is one line here. */
export const COMMANDS = {
  serve: () => import("./ServeCommand.ts").then((module) => module.serveCommand),
  check: () => import("./CheckCommand.ts").then((module) => module.checkCommand),
  audit: () => import("./AuditCommand.ts").then((module) => module.auditCommand),
  replay: () => import("./ReplayCommand.ts").then((module) => module.replayCommand),
  "claude-hook": () => import("./ClaudeHookCommand.ts").then((module) => module.claudeHookCommand),
  schema: () => import("./SchemaCommand.ts").then((module) => module.schemaCommand)
} as const

/** A command's name. */
export type CommandName = keyof typeof COMMANDS

/** Whether an argument names a command. */
export const isCommandName = (arg: string): arg is CommandName => Object.hasOwn(COMMANDS, arg)

/**
 * The commands `args` needs: the first argument that names one (global flags such as
 * `--log-level debug` may come before it), or all of them for the root help, `--version` or an
 * unknown command.
 */
export const commandsFor = (args: ReadonlyArray<string>): ReadonlyArray<CommandName> => {
  const named = args.find(isCommandName)
  return named === undefined ? (Object.keys(COMMANDS) as Array<CommandName>) : [named]
}

/** The root command over the given commands. */
export const root = <const Subcommands extends ReadonlyArray<Command.Command.SubcommandEntry>>(subcommands: Subcommands) =>
  Command.make("interlock").pipe(Command.withDescription(DESCRIPTION), Command.withSubcommands(subcommands))

/** Runs the CLI on `args` (the process's arguments after the script), loading only the commands they need. */
export const run = (args: ReadonlyArray<string>) =>
  Effect.promise(() => Promise.all(commandsFor(args).map((name) => COMMANDS[name]()))).pipe(
    Effect.flatMap((commands) => Command.runWith(root(commands), { version: VERSION })(args))
  )

/** The bin's entry: runs `args` with the Node services; the process exits with the command's outcome. */
export const main = (args: ReadonlyArray<string>): void =>
  run(args).pipe(Effect.scoped, Effect.provide(NodeServices.layer), NodeRuntime.runMain)
