/**
 * A plain copy of JSON data from untrusted input. Each property is read exactly once, so a getter
 * or a Proxy anywhere inside cannot show one value to the check and another to the policy, the
 * digest or the wire: everything after the copy sees only the copy. Iterative, so deep input
 * cannot overflow the stack; nesting past {@link JSON_COPY_MAX_DEPTH} is refused.
 */
import type { Json } from "../model/Canonical.ts"

/** The deepest nesting a copied value may have (objects and arrays). */
export const JSON_COPY_MAX_DEPTH = 3072

/** Why a value could not be copied as strict JSON (no undefined values, plain objects only). */
export type CopyProblem = "not JSON" | "too deep"

interface Frame {
  readonly source: object
  readonly target: Record<string, unknown> | Array<unknown>
  /** The property names (undefined for an array) and their values, each read once on entry. */
  readonly keys: ReadonlyArray<string> | undefined
  readonly values: ReadonlyArray<unknown>
  i: number
}

const isPrimitiveJson = (value: unknown): boolean =>
  typeof value === "string" || typeof value === "boolean" || value === null ||
  (typeof value === "number" && Number.isFinite(value))

const put = (target: Frame["target"], key: string | number, value: unknown) => {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  } else (target as Record<string, unknown>)[key] = value
}

/** Reads a container's entries once: a frame to fill, or "not JSON" for a non-plain object. */
const enter = (source: object): Frame | "not JSON" => {
  if (Array.isArray(source)) {
    const length = source.length
    const values: Array<unknown> = []
    for (let i = 0; i < length; i++) values.push(source[i])
    return { source, target: new Array<unknown>(values.length), keys: undefined, values, i: 0 }
  }
  const proto = Object.getPrototypeOf(source)
  if (proto !== Object.prototype && proto !== null) return "not JSON"
  const keys = Object.keys(source)
  const values: Array<unknown> = []
  for (const key of keys) values.push((source as Record<string, unknown>)[key])
  return { source, target: {}, keys, values, i: 0 }
}

/**
 * Copies a plain JSON object into fresh plain data, or says why it cannot. Rejects cycles,
 * non-plain objects, undefined values, functions, symbols, bigints and non-finite numbers.
 * May throw when a getter or Proxy trap throws: callers read it inside a try.
 */
export const copyStrictJsonObject = (root: unknown): { readonly [key: string]: Json } | CopyProblem => {
  if (typeof root !== "object" || root === null || Array.isArray(root)) return "not JSON"
  const first = enter(root)
  if (first === "not JSON") return first
  // The common case on the hot path: primitives only, no stack.
  if (first.values.every(isPrimitiveJson)) {
    for (let i = 0; i < first.values.length; i++) {
      put(first.target, (first.keys as ReadonlyArray<string>)[i], first.values[i])
    }
    return first.target as { readonly [key: string]: Json }
  }
  const active = new Set<object>([root])
  // A container met again (not a cycle) reuses its copy: shared references cannot blow up the work.
  const done = new Map<object, Frame["target"]>()
  const stack: Array<Frame> = [first]
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]
    if (frame.i >= frame.values.length) {
      stack.pop()
      active.delete(frame.source)
      done.set(frame.source, frame.target)
      continue
    }
    const key = frame.keys === undefined ? frame.i : frame.keys[frame.i]
    const value = frame.values[frame.i]
    frame.i++
    if (isPrimitiveJson(value)) put(frame.target, key, value)
    else if (typeof value === "object" && value !== null) {
      if (active.has(value)) return "not JSON"
      const copied = done.get(value)
      if (copied !== undefined) {
        put(frame.target, key, copied)
        continue
      }
      if (stack.length >= JSON_COPY_MAX_DEPTH) return "too deep"
      const next = enter(value)
      if (next === "not JSON") return next
      active.add(value)
      stack.push(next)
      put(frame.target, key, next.target)
    } else return "not JSON"
  }
  return first.target as { readonly [key: string]: Json }
}
