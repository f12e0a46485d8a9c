/**
 * A command's errors as effect/cli's user errors, apart from Shared.ts so that the claude-hook
 * path, which answers every error itself, loads no CliError.
 */
import { Effect } from "effect"
import * as CliError from "effect/cli/CliError"

/** A tagged error with a message as a CLI user error: `interlock: <message>`. */
export const toUserError = (error: { readonly message: string }): CliError.UserError =>
  new CliError.UserError({ cause: error, userMessage: `interlock: ${error.message}` })

/** Any tagged error with a message becomes a CLI user error: one line on stderr and exit code 1. */
export const userFacing = <A, E extends { readonly message: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.mapError(effect, toUserError)
