/**
 * One compiled hook run on its own, outside any chain, as its chain would run it: selected by its matcher, called
 * with its event's arguments, settled under its deadline in a supervised fiber (HookRunner.ts) and decoded against
 * its event and kind (VerdictDecoder.ts). For a host that serves hooks one by one. What a hook raised goes nowhere.
 */
import { Effect, type Scope } from "effect"
import * as Supervisor from "../internal/Supervisor.ts"
import type { FailureKind } from "../model/Receipt.ts"
import type { JsonObject, ToolCall } from "../model/ToolCall.ts"
import type { ToolResult } from "../model/ToolResult.ts"
import type { HookContext } from "./HookContext.ts"
import { type Invocation, invoke, isSettled, type Settled, supervised } from "./HookRunner.ts"
import type { HooksShape, ResolvedHook } from "./Hooks.ts"
import { type Decoded, type DecodeInput, decodeVerdict } from "./VerdictDecoder.ts"

/** A verdict as decoded: payloads checked, typed values (VerdictDecoder.ts). */
export type { Decoded }

/** What one hook is run on: its event's arguments, for the events a hook can be run alone on. */
export type Input =
  | { readonly event: "preToolCall"; readonly call: ToolCall }
  | { readonly event: "postToolCall"; readonly call: ToolCall; readonly result: ToolResult }
  | { readonly event: "resourceRead"; readonly serverId: string; readonly uri: string }
  | { readonly event: "promptGet"; readonly serverId: string; readonly name: string; readonly args: JsonObject }

/** How one run ended: the hook's matcher did not select the input, it answered a checked verdict, or it failed. */
export type Outcome =
  | { readonly _tag: "Skipped" }
  | { readonly _tag: "Answered"; readonly verdict: Decoded }
  | { readonly _tag: "Failed"; readonly kind: FailureKind }

/** Runs hooks one at a time, each under its own deadline (or the runner's default). */
export interface Runner {
  /** Runs `hook` on `input` with `ctx`. Never fails; a hook of another event than `input`'s is a defect. */
  readonly run: (hook: ResolvedHook, input: Input, ctx: HookContext) => Effect.Effect<Outcome>
}

/** The default deadline of a hook without its own, as a client's hookTimeout defaults. */
export const DEFAULT_TIMEOUT_MS = 5_000

interface State {
  readonly input: Input
  readonly ctx: HookContext
}

const callHook = ({ ctx, input }: State, hook: ResolvedHook): unknown => {
  switch (input.event) {
    case "preToolCall":
      return hook.run(input.call, ctx)
    case "postToolCall":
      return hook.run(input.call, input.result, ctx)
    case "resourceRead":
      return hook.run(input.uri, ctx)
    case "promptGet":
      return hook.run(input.name, input.args, ctx)
  }
}

const decodeInput = (input: Input): DecodeInput =>
  input.event === "preToolCall"
    ? { event: "preToolCall", call: input.call }
    : input.event === "promptGet"
    ? { event: "promptGet", name: input.name }
    : { event: input.event }

/** Whether the hook's matcher selects the input, as a chain selects its hooks (Selector in HookChain.ts). */
const selects = (hook: ResolvedHook, input: Input): boolean => {
  switch (input.event) {
    case "preToolCall":
    case "postToolCall":
      return hook.matcher.restrictTest(input.call.serverId, input.call.name)
    case "resourceRead":
      return hook.matcher.restrictTest(input.serverId, input.uri)
    case "promptGet":
      return hook.matcher.restrictTest(input.serverId, input.name)
  }
}

const SKIPPED: Outcome = { _tag: "Skipped" }

const outcomeOf = (settled: Settled<Decoded>): Outcome =>
  settled.ok ? { _tag: "Answered", verdict: settled.verdict } : { _tag: "Failed", kind: settled.kind }

/**
 * A runner for resolved `hooks` in the current scope: their Effects get the hooks' services, and run in a
 * supervisor of this scope, as a client's do (closing the scope interrupts them).
 */
export const make = (
  hooks: HooksShape,
  options: { readonly hookTimeoutMs?: number | undefined } = {}
): Effect.Effect<Runner, never, Scope.Scope> => {
  const hookTimeoutMs = options.hookTimeoutMs ?? DEFAULT_TIMEOUT_MS
  return Effect.map(Supervisor.make(hookTimeoutMs), (supervisor): Runner => {
    const invocation: Invocation<State, ResolvedHook, Decoded> = {
      call: callHook,
      decode: (value, state, hook) => decodeVerdict(decodeInput(state.input), hook.kind, value),
      deadlineMs: (hook) => hook.timeoutMs ?? hookTimeoutMs,
      fibers: supervised(supervisor),
      context: hooks.context.mapUnsafe.size > 0 ? hooks.context : undefined
    }
    const run = (hook: ResolvedHook, input: Input, ctx: HookContext): Effect.Effect<Outcome> =>
      Effect.suspend(() => {
        if (hook.event !== input.event) {
          return Effect.die(new Error(`hook "${hook.id}" is a ${hook.event} hook, not a ${input.event} one`))
        }
        if (!selects(hook, input)) return Effect.succeed(SKIPPED)
        const answer = invoke(invocation, { input, ctx }, hook)
        return isSettled(answer) ? Effect.succeed(outcomeOf(answer)) : Effect.map(answer, outcomeOf)
      })
    return { run }
  })
}
