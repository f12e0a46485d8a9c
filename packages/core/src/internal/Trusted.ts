/**
 * Construction of Schema class instances from fields Interlock has already checked: `new Class(fields)`
 * re-validates them (and `disableChecks` still re-parses their structure), which the pipeline would pay for each
 * call, context and receipt. A plain record on the class's prototype is what the constructor makes once its input
 * is parsed, so the instance is the same as one from `new`.
 */

type Constructor<Self> = new(fields: any, options?: { readonly disableChecks?: boolean | undefined }) => Self

/**
 * Builds an instance of a Schema class without re-running its checks. The caller vouches for
 * `fields`: an object literal of the class's fields (never one with an own `__proto__` key).
 */
export const makeTrusted = <Self>(self: Constructor<Self>, fields: object): Self =>
  Object.assign(Object.create(self.prototype), fields)
