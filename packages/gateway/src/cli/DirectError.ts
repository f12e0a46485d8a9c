/**
 * A command's user error, printed outside effect/cli exactly as effect/cli prints it (its own
 * formatter, colored when the terminal can), with exit code 1: what Cli.ts's direct paths use.
 * The formatter is loaded only when there is an error to print.
 */
import { Console, Effect } from "effect"
import type * as CliError from "effect/cli/CliError"
import * as TerminalCapabilities from "effect/cli/TerminalCapabilities"

/** Runs `effect`; a user error is printed as effect/cli would print it and the process exits 1. */
export const reportUserError = <R>(effect: Effect.Effect<void, CliError.UserError, R>): Effect.Effect<void, never, R> =>
  Effect.catch(effect, (error) =>
    Effect.gen(function*() {
      const { canColor } = yield* TerminalCapabilities.TerminalCapabilities
      const CliOutput = yield* Effect.promise(() => import("effect/cli/CliOutput"))
      yield* Console.error(CliOutput.defaultFormatter({ colors: canColor }).formatError(error))
      process.exitCode = 1
    }))
