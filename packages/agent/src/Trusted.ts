/**
 * Schema class instances built from values the loop has just produced itself. `new Class(fields)`
 * parses every field again (a RunResult holds the whole transcript); effect's trusted constructor
 * skips that where the runtime offers it.
 */
import { Schema } from "effect"

type ClassOf<Self> = new(fields: any, options?: Schema.MakeOptions) => Self

const makeClassTrusted = (Schema as unknown as { readonly makeClassTrusted?: <Self>(self: ClassOf<Self>, fields: object) => Self }).makeClassTrusted

/** An instance of `self` from fields the caller vouches for. */
export const trusted = <Self>(self: ClassOf<Self>, fields: object): Self =>
  makeClassTrusted === undefined ? new self(fields, { disableChecks: true }) : makeClassTrusted(self, fields)
