/**
 * Effect Arbitraries (`effect/Arbitrary`, not fast-check) of tool calls and their arguments, for
 * property tests of an app's own hooks and policies with `it.effect.prop` from `@effect/vitest`.
 */
import { Arbitrary, Schema } from "effect"
import { type JsonObject, makeToolCall, type ToolCall } from "../model/ToolCall.ts"
import type { CallInput } from "../program/ToolCalls.ts"
import { toolName } from "./LooseNames.ts"

export {
  LOOKALIKE_OF,
  lookalikeNamePair,
  lookalikeVariant,
  looseNamePair,
  looseVariant,
  toolName
} from "./LooseNames.ts"

/** Tool arguments: any JSON object (keys any string, values any JSON). */
export const jsonArgs: Arbitrary.Arbitrary<JsonObject> = Arbitrary.schema(Schema.JsonObject)

/** A call id as a host would send one. */
export const callId: Arbitrary.Arbitrary<string> = Arbitrary.schema(
  Schema.String.check(Schema.isPattern(/^call-[0-9a-f]{8}$/))
)

/**
 * What to draw a call from: each part a fixed value or an Arbitrary; default any of {@link toolName} and {@link
 * jsonArgs}.
 */
export interface CallParts {
  readonly serverId?: string | Arbitrary.Arbitrary<string>
  readonly name?: string | Arbitrary.Arbitrary<string>
  readonly args?: JsonObject | Arbitrary.Arbitrary<JsonObject>
}

const part = <A>(
  value: A | Arbitrary.Arbitrary<A> | undefined,
  fallback: Arbitrary.Arbitrary<A>
): Arbitrary.Arbitrary<A> =>
  value === undefined
    ? fallback
    : Arbitrary.isArbitrary(value)
    ? (value as Arbitrary.Arbitrary<A>)
    : Arbitrary.Constant(value)

/**
 * A call as an app passes it to `callTool`; for example `callInput({ serverId: "fs", name: looseVariant("write_file")
 * })`.
 */
export const callInput = (
  parts: CallParts = {}
): Arbitrary.Arbitrary<CallInput & { readonly args: JsonObject; readonly callId: string }> =>
  Arbitrary.all({
    serverId: part(parts.serverId, toolName),
    name: part(parts.name, toolName),
    args: part(parts.args, jsonArgs),
    callId
  })

/** A ToolCall as hooks and the policy get it, to test a hook or `Policy.decide` directly. */
export const toolCall = (parts: CallParts = {}): Arbitrary.Arbitrary<ToolCall> =>
  callInput(parts).pipe(Arbitrary.map(makeToolCall))
