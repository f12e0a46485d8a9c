/**
 * A plain copy of JSON data from untrusted input. Each property is read exactly once, so a getter
 * or a Proxy anywhere inside cannot show one value to the check and another to the policy, the
 * digest or the wire: everything after the copy sees only the copy. Iterative, so deep input
 * cannot overflow the stack; nesting past {@link JSON_COPY_MAX_DEPTH} is refused.
 */
import type { Json } from "./Canonical.ts"

/** The deepest nesting a copied value may have (objects and arrays). */
export const JSON_COPY_MAX_DEPTH = 3072

/** Why a value could not be copied as strict JSON (no undefined values, plain objects only). */
export type CopyProblem = "not JSON" | "too deep"

interface Frame {
  readonly source: object
  readonly target: Record<string, unknown> | Array<unknown>
  readonly keys: ReadonlyArray<string> | undefined
  readonly length: number
  i: number
}

const isPrimitiveJson = (value: unknown): boolean =>
  typeof value === "string" || typeof value === "boolean" || value === null ||
  (typeof value === "number" && Number.isFinite(value))

const put = (target: Frame["target"], key: string | number, value: unknown) => {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else (target as Record<string, unknown>)[key] = value
}

/**
 * Copies a plain JSON object into fresh plain data, or says why it cannot. Rejects cycles,
 * non-plain objects, undefined values, functions, symbols, bigints and non-finite numbers.
 * May throw when a getter or Proxy trap throws: callers read it inside a try.
 */
export const copyStrictJsonObject = (root: unknown): { readonly [key: string]: Json } | CopyProblem => {
  if (typeof root !== "object" || root === null || Array.isArray(root)) return "not JSON"
  const active = new Set<object>()
  const stack: Array<Frame> = []
  const open = (source: object): Frame["target"] | CopyProblem => {
    if (active.has(source)) return "not JSON"
    if (stack.length >= JSON_COPY_MAX_DEPTH) return "too deep"
    let frame: Frame
    if (Array.isArray(source)) {
      const length = source.length
      frame = { source, target: new Array<unknown>(length), keys: undefined, length, i: 0 }
    } else {
      const proto = Object.getPrototypeOf(source)
      if (proto !== Object.prototype && proto !== null) return "not JSON"
      const keys = Object.keys(source)
      frame = { source, target: {}, keys, length: keys.length, i: 0 }
    }
    active.add(source)
    stack.push(frame)
    return frame.target
  }
  const top = open(root)
  if (typeof top === "string") return top
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]
    if (frame.i >= frame.length) {
      stack.pop()
      active.delete(frame.source)
      continue
    }
    const key = frame.keys === undefined ? frame.i : frame.keys[frame.i]
    frame.i++
    const value = (frame.source as Record<string | number, unknown>)[key]
    if (isPrimitiveJson(value)) put(frame.target, key, value)
    else if (typeof value === "object" && value !== null) {
      const target = open(value)
      if (typeof target === "string") return target
      put(frame.target, key, target)
    } else return "not JSON"
  }
  return top as { readonly [key: string]: Json }
}
