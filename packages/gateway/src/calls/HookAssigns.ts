/**
 * What hooks find in `ctx.assigns`: core hands its hooks a record, so this is the one place where
 * the request's typed values (HostClient.ts, InputRound.ts) become keys of it. The keys are part of
 * the gateway's hook surface (its README): the host's client info and a 2026-07-28 host's input.
 */
import type { OperationOptions } from "@interlock/core"
import { Effect } from "effect"
import { CurrentHostClient } from "./HostClient.ts"
import { CurrentHostInput } from "./InputRound.ts"

/** The assigns key of the host's client info (`{ name, version }`), as hooks read it. */
export const HOOK_CLIENT_KEY = "interlock/hostClient"

/** The assigns key of a 2026-07-28 request's answers and state (a HostInput), as hooks read it. */
export const HOOK_INPUT_KEY = "interlock.hostInput"

/** `options` with the current request's host client and host input added to the assigns core's hooks see. */
export const hookOptions = <O extends OperationOptions>(options: O | undefined): Effect.Effect<O | undefined> =>
  Effect.map(Effect.all([CurrentHostClient, CurrentHostInput]), ([client, input]) => {
    if (client === undefined && input === undefined) return options
    const assigns: Record<string, unknown> = { ...options?.assigns }
    if (client !== undefined) assigns[HOOK_CLIENT_KEY] = client
    if (input !== undefined) assigns[HOOK_INPUT_KEY] = input
    return { ...options, assigns } as O
  })

/** Runs `use` with {@link hookOptions} of `options`. */
export const withHookOptions = <O extends OperationOptions, A, E, R>(
  options: O | undefined,
  use: (options: O | undefined) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => Effect.flatMap(hookOptions(options), use)
