/**
 * Construction of Schema class instances from fields that Interlock has already checked.
 *
 * `new Class(fields)` re-validates every field (about 1.3 µs for a ToolCall); the pipeline builds
 * a call, a context and a receipt for every tool call, from values it has just validated itself,
 * so it uses Effect's own trusted constructor where one is available.
 */
import { Schema } from "effect"

type Constructor<Self> = new(fields: any, options?: Schema.MakeOptions) => Self

const trusted = (Schema as unknown as {
  readonly makeClassTrusted?: <Self>(self: Constructor<Self>, fields: object) => Self
}).makeClassTrusted

/** Builds an instance of a Schema class without re-running its checks. The caller vouches for `fields`. */
export const makeTrusted = <Self>(self: Constructor<Self>, fields: object): Self =>
  trusted !== undefined ? trusted(self, fields) : new self(fields)
