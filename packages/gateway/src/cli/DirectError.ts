/**
 * A command's error, printed outside effect/cli exactly as effect/cli prints a user error (its own
 * formatter, colored when the terminal can), with exit code 1: what Cli.ts's direct paths use.
 * The formatter and CliError are loaded only when there is an error to print.
 */
import { Console, Effect } from "effect"

/** Runs `effect`; an error is printed as effect/cli would print it as a user error and the process exits 1. */
export const reportUserError = <E extends { readonly message: string }, R>(
  effect: Effect.Effect<void, E, R>
): Effect.Effect<void, never, R> =>
  Effect.catch(effect, (error) =>
    Effect.gen(function*() {
      const [CliOutput, TerminalCapabilities, { toUserError }] = yield* Effect.promise(() =>
        Promise.all([
          import("effect/cli/CliOutput"),
          import("effect/cli/TerminalCapabilities"),
          import("./UserFacing.ts")
        ])
      )
      const { canColor } = yield* TerminalCapabilities.TerminalCapabilities
      yield* Console.error(CliOutput.defaultFormatter({ colors: canColor }).formatError(toUserError(error)))
      process.exitCode = 1
    }))
