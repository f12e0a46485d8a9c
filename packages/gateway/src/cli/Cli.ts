/**
 * The `interlock` command line. Each command is its own module, loaded only when it runs (the root help and an
 * unknown command load them all, so effect/cli lists every one). The plain forms of `claude-hook`, `check` and
 * `redact` skip effect/cli as well (its parser and services cost more than their work); other forms go through it.
 * The bin starts `claude-hook --gateway URL` (ClaudeHookForward.ts) instead of this module.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import { VERSION } from "../runtime/Version.ts"
import { directArgs } from "./DirectArgs.ts"

/** The root command's description (the first line of `interlock --help`). */
export const DESCRIPTION = "Interlock: typed hooks and one policy around every MCP tool call"

/** Every command, in the order the help lists them, and how to load it. Adding a command is one line here. */
export const COMMANDS = {
  init: () => import("./InitCommand.ts").then((module) => module.initCommand),
  serve: () => import("./ServeCommand.ts").then((module) => module.serveCommand),
  check: () => import("./CheckCommand.ts").then((module) => module.checkCommand),
  audit: () => import("./AuditCommand.ts").then((module) => module.auditCommand),
  replay: () => import("./ReplayCommand.ts").then((module) => module.replayCommand),
  "claude-hook": () => import("./ClaudeHookCommand.ts").then((module) => module.claudeHookCommand),
  redact: () => import("./RedactCommand.ts").then((module) => module.redactCommand),
  credentials: () => import("./CredentialsCommand.ts").then((module) => module.credentialsCommand),
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

/** A flag's value as effect/cli gives it to a command: Some(value), or None when not given. */
const flagValueOf = (given: string | true | undefined): Option.Option<string> =>
  Option.fromUndefinedOr(typeof given === "string" ? given : undefined)

/**
 * The flags of a plain `claude-hook` with at most `--config F` (`-c F`, `--config=F`) and
 * `--timeout S` (`--timeout=S`), each once; undefined for any other arguments, which effect/cli parses.
 */
export const directClaudeHook = (
  args: ReadonlyArray<string>
): { readonly config: Option.Option<string>; readonly timeout: Option.Option<string> } | undefined => {
  const given = directArgs(args, "claude-hook")
  return given === undefined ? undefined : { config: flagValueOf(given.config), timeout: flagValueOf(given.timeout) }
}

/** The config and connect flag of a plain `check [--config F] [--no-connect]`; undefined for any other arguments. */
export const directCheck = (
  args: ReadonlyArray<string>
): { readonly config: Option.Option<string>; readonly connect: boolean } | undefined => {
  const given = directArgs(args, "check")
  return given === undefined
    ? undefined
    : { config: flagValueOf(given.config), connect: given.noConnect === undefined }
}

/**
 * The flags of a plain `redact --config F --tool T` (both given, each once), as the bridge's Bash
 * rewrite runs it; undefined for any other arguments, which effect/cli parses.
 */
export const directRedact = (
  args: ReadonlyArray<string>
): { readonly config: string; readonly tool: string } | undefined => {
  const given = directArgs(args, "redact")
  return typeof given?.config === "string" && typeof given.tool === "string"
    ? { config: given.config, tool: given.tool }
    : undefined
}

/** Runs `args` through effect/cli with the Node services, loading only the commands they name. */
const viaEffectCli = (args: ReadonlyArray<string>) =>
  Effect.promise(() =>
    Promise.all([
      import("effect/cli/Command"),
      import("@effect/platform-node/NodeServices"),
      Promise.all(commandsFor(args).map((name) => COMMANDS[name]()))
    ])
  ).pipe(
    Effect.flatMap(([Command, NodeServices, commands]) => {
      const root = Command.make("interlock").pipe(
        Command.withDescription(DESCRIPTION),
        Command.withSubcommands(commands)
      )
      return Command.runWith(root, { version: VERSION })(args).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
    })
  )

/**
 * Runs the CLI on `args` (the process's arguments after the script). Every log line goes to stderr:
 * stdout holds only what a command prints (a schema, a table, the host's messages).
 */
export const run = (args: ReadonlyArray<string>): Effect.Effect<void, unknown> =>
  Effect.provideService(runCommand(args), Logger.LogToStderr, true)

const runCommand = (args: ReadonlyArray<string>): Effect.Effect<void, unknown> => {
  const hook = directClaudeHook(args)
  if (hook !== undefined) {
    return Effect.flatMap(
      Effect.promise(() => import("./ClaudeHookAnswer.ts")),
      ({ answerHook }) => answerHook(hook.config, hook.timeout)
    )
  }
  const check = directCheck(args)
  if (check !== undefined) {
    return Effect.flatMap(
      Effect.promise(() => Promise.all([import("./CheckReport.ts"), import("./DirectError.ts")])),
      ([{ checkConfig }, { reportUserError }]) => reportUserError(checkConfig(check.config, check.connect))
    )
  }
  const filter = directRedact(args)
  return filter === undefined
    ? viaEffectCli(args)
    : Effect.flatMap(
      Effect.promise(() => import("./RedactFilter.ts")),
      ({ redactFilter }) => redactFilter(Option.some(filter.config), filter.tool)
    )
}

/** The bin's entry: runs `args`; the process exits with the command's outcome. */
export const main = (args: ReadonlyArray<string>): void => {
  // Claude Code lets a tool run when its hook exits 1: claude-hook's own failures before the bridge
  // answers (a flag effect/cli rejects, say) exit 2, its blocking exit, instead.
  if (args[0] === "claude-hook") {
    process.once("exit", () => {
      if (process.exitCode === 1) process.exitCode = 2
    })
  }
  NodeRuntime.runMain(run(args))
}
