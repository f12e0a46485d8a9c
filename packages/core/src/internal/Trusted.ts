/**
 * Construction of Schema class instances from fields that Interlock has already checked.
 * `new Class(fields)` re-validates every field, and `{ disableChecks: true }` still re-parses their
 * structure; the pipeline builds a call, a context and a receipt per tool call from values it has
 * just validated, so it builds them as plain records on the class's prototype. That is all a Schema
 * class's constructor does once its input is parsed, so the instance is the same as one from `new`.
 */

type Constructor<Self> = new(fields: any, options?: { readonly disableChecks?: boolean | undefined }) => Self

/**
 * Builds an instance of a Schema class without re-running its checks. The caller vouches for
 * `fields`: an object literal of the class's fields (never one with an own `__proto__` key).
 */
export const makeTrusted = <Self>(self: Constructor<Self>, fields: object): Self =>
  Object.assign(Object.create(self.prototype), fields)
