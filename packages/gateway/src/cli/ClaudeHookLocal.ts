/**
 * The entry of the claude-hook bundle (dist/bundle/hook/ClaudeHook.cjs, which ClaudeHookBundle.ts runs): a plain
 * `claude-hook [--config F] [--timeout S]` answered as Cli.ts's direct path answers it (ClaudeHookAnswer.ts, log
 * lines on stderr), and nothing else of the CLI: no effect/cli, no other command.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Logger, Option } from "effect"
import { answerHook } from "./ClaudeHookAnswer.ts"
import type { DirectValues } from "./DirectArgs.ts"

const flagValue = (given: string | true | undefined): Option.Option<string> =>
  Option.fromUndefinedOr(typeof given === "string" ? given : undefined)

/** Answers the hook event on stdin under a plain claude-hook's flags; the process exits with the answer's code. */
export const main = (flags: DirectValues<"claude-hook">): void =>
  NodeRuntime.runMain(
    Effect.provideService(answerHook(flagValue(flags.config), flagValue(flags.timeout)), Logger.LogToStderr, true)
  )
