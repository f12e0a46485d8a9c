/**
 * The hooks config as a user writes it: per event, a list of entries. An entry is
 * `{ match, run, ...options }` or the seed's tuple `[match, run]` / `[match, run, options]`.
 * `run` is a function of the event's arguments, or the tag of a service whose value is one.
 */
import { Context, type Duration, type Effect, Schema } from "effect"
import type { CallError } from "../model/Errors.ts"
import { isDeadline, toMillis } from "../model/Millis.ts"
import type { Tool } from "../model/Tool.ts"
import type { JsonObject, ToolCall } from "../model/ToolCall.ts"
import type { ToolResult } from "../model/ToolResult.ts"
import { MatcherFromInput, MatcherInput } from "../policy/Matcher.ts"
import type { HookContext } from "./HookContext.ts"
import { HOOK_EVENTS, type HookEvent } from "./HookEvent.ts"
import type {
  PostToolCallVerdict,
  PreToolCallVerdict,
  PromptGetVerdict,
  ResourceReadVerdict,
  ToolCallFailedVerdict,
  ToolsListedVerdict
} from "./Verdict.ts"
import type { HookKind } from "./VerdictDecoder.ts"

/** What a hook function may return: a verdict, a Promise of one, or an Effect of one. */
export type HookReturn<V, R = never> = V | PromiseLike<V> | Effect.Effect<V, unknown, R>

/** A preToolCall hook. */
export type PreToolCallHook<R = never> = (call: ToolCall, ctx: HookContext) => HookReturn<PreToolCallVerdict, R>
/** A postToolCall hook. It sees isError results too. */
export type PostToolCallHook<R = never> = (
  call: ToolCall,
  result: ToolResult,
  ctx: HookContext
) => HookReturn<PostToolCallVerdict, R>
/** A toolCallFailed hook. */
export type ToolCallFailedHook<R = never> = (
  call: ToolCall,
  error: CallError,
  ctx: HookContext
) => HookReturn<ToolCallFailedVerdict, R>
/** A toolsListed hook: gets the listed tools its matcher selects. */
export type ToolsListedHook<R = never> = (
  tools: ReadonlyArray<Tool>,
  ctx: HookContext
) => HookReturn<ToolsListedVerdict, R>
/** A resourceRead hook. */
export type ResourceReadHook<R = never> = (uri: string, ctx: HookContext) => HookReturn<ResourceReadVerdict, R>
/** A promptGet hook. */
export type PromptGetHook<R = never> = (
  name: string,
  args: JsonObject,
  ctx: HookContext
) => HookReturn<PromptGetVerdict, R>

/** Per-hook options. */
export interface HookOptions {
  /** Names the hook in errors, receipts and telemetry; default `<event>[<index>]`. Unique. */
  readonly id?: string
  /** The hook's deadline (ms or a Duration); default the client's hookTimeout (5 s). */
  readonly timeout?: Duration.Input
  /** postToolCall and toolCallFailed only: `ignore` skips a failing hook instead of failing. */
  readonly onError?: "fail" | "ignore"
  /** guard (may Deny or Halt), transform (may Rewrite, Replace, ReplaceTools, Recover) or observe (Continue only). */
  readonly kind?: HookKind
  /** A required hook that produces no verdict (ignored, skipped or timed out) fails the call closed. */
  readonly required?: boolean
}

/** One entry: a hook function (or the tag of a service holding one) with its matcher and options. */
export type HookEntry<F> =
  | (HookOptions & { readonly match: MatcherInput; readonly run: F | Context.Key<any, F> })
  | readonly [MatcherInput, F | Context.Key<any, F>]
  | readonly [MatcherInput, F | Context.Key<any, F>, HookOptions]

/** The hooks config, per event. */
export interface HooksConfig {
  readonly preToolCall?: ReadonlyArray<HookEntry<PreToolCallHook<any>>>
  readonly postToolCall?: ReadonlyArray<HookEntry<PostToolCallHook<any>>>
  readonly toolCallFailed?: ReadonlyArray<HookEntry<ToolCallFailedHook<any>>>
  readonly toolsListed?: ReadonlyArray<HookEntry<ToolsListedHook<any>>>
  readonly resourceRead?: ReadonlyArray<HookEntry<ResourceReadHook<any>>>
  readonly promptGet?: ReadonlyArray<HookEntry<PromptGetHook<any>>>
}

// The Schemas of a hooks config as written. In code an optional option may be given as undefined.

/** A hooks config that names no event. */
export type NoHooks = Record<never, never>

/** A hook's function before its event's row says what it takes and answers. */
export type AnyHookFunction = (...args: Array<any>) => unknown

/** A hook's `run`: a function, or the tag of a service whose value is one. */
export const HookFunction = Schema.declare((u: unknown): u is AnyHookFunction | Context.Key<any, any> =>
  Context.isKey(u) || typeof u === "function"
)

/** A hook's deadline: milliseconds or a Duration input, positive and finite. */
export const HookTimeout = Schema.declare((u: unknown): u is Duration.Input => isDeadline(toMillis(u)))

/** The fields of {@link HookOptions}, for entry Schemas to spread. */
export const HookOptionFields = {
  id: Schema.optional(Schema.NonEmptyString),
  timeout: Schema.optional(HookTimeout),
  onError: Schema.optional(Schema.Literals(["fail", "ignore"])),
  kind: Schema.optional(Schema.Literals(["guard", "transform", "observe"])),
  required: Schema.optional(Schema.Boolean)
}

/** The Schema of {@link HookOptions} (decode with `onExcessProperty: "error"`: an unknown option is a mistake). */
export const HookOptions = Schema.Struct(HookOptionFields)

const entryOf = <Match extends Schema.Top>(match: Match) =>
  Schema.Union([
    Schema.Struct({ match, run: HookFunction, ...HookOptionFields }),
    Schema.Tuple([match, HookFunction, Schema.optional(Schema.NullOr(HookOptions))])
  ])

const configOf = <Match extends Schema.Top>(match: Match) => {
  const entries = Schema.optional(Schema.Array(entryOf(match)))
  return Schema.Struct(
    Object.fromEntries(HOOK_EVENTS.map((event) => [event, entries])) as Record<HookEvent, typeof entries>
  )
}

/**
 * One entry, `{ match, run, ...options }` or `[match, run]` / `[match, run, options]`: the Schema of {@link HookEntry}.
 */
export const HookEntry = entryOf(MatcherInput)

/** A hooks config: per event, a list of entries; no other key. The Schema of {@link HooksConfig}. */
export const HooksConfigSchema = configOf(MatcherInput)

/** What `Hooks.compile` decodes: {@link HooksConfigSchema}, with each matcher compiled as it is checked. */
export const CompilableHooks = configOf(MatcherFromInput)
