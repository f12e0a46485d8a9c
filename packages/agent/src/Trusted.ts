/**
 * Schema class instances built from values the loop has just produced itself. `new Class(fields)`
 * checks every field again, and even `{ disableChecks: true }` re-parses their structure, and a
 * RunResult holds the whole transcript. So these are plain records on the class's prototype: all a Schema class's
 * constructor does once its input is parsed is assign the fields, so the instance is the same.
 */

type ClassOf<Self> = new(fields: any, options?: { readonly disableChecks?: boolean | undefined }) => Self

/** An instance of `self` from fields the caller vouches for (an object literal, never one with an own `__proto__` key). */
export const trusted = <Self>(self: ClassOf<Self>, fields: object): Self =>
  Object.assign(Object.create(self.prototype), fields)
