/**
 * Canonical JSON (RFC 8785, JCS) and the SHA-256 digests built on it.
 *
 * Pure functions: the same JSON value always gives the same text, whatever the key order.
 */
import { hash } from "node:crypto"

/** A JSON value as it crosses the wire. */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

/** Returned by {@link canonicalJson} for a value that JSON cannot carry; `path` says where it is. */
export class NotJson {
  readonly _tag = "NotJson"
  readonly path: string
  readonly what: string
  constructor(path: string, what: string) {
    this.path = path
    this.what = what
  }
}

const compareUtf16 = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Serialises a JSON value per RFC 8785: keys sorted by UTF-16 code units, no white space,
 * numbers and strings as ECMAScript's JSON.stringify writes them. Returns NotJson for
 * values that JSON cannot carry (undefined, functions, symbols, bigints, non-finite numbers, cycles).
 */
export const canonicalJson = (value: unknown): string | NotJson => {
  const parts: Array<string> = []
  const seen = new Set<object>()
  const walk = (v: unknown, path: string): NotJson | undefined => {
    switch (typeof v) {
      case "string":
        parts.push(JSON.stringify(v))
        return
      case "boolean":
        parts.push(v ? "true" : "false")
        return
      case "number":
        if (!Number.isFinite(v)) return new NotJson(path, "a non-finite number")
        parts.push(JSON.stringify(v))
        return
      case "object": {
        if (v === null) {
          parts.push("null")
          return
        }
        if (seen.has(v)) return new NotJson(path, "a cycle")
        seen.add(v)
        if (Array.isArray(v)) {
          parts.push("[")
          for (let i = 0; i < v.length; i++) {
            if (i > 0) parts.push(",")
            const bad = walk(v[i], `${path}[${i}]`)
            if (bad) return bad
          }
          parts.push("]")
        } else {
          const proto = Object.getPrototypeOf(v)
          if (proto !== Object.prototype && proto !== null) return new NotJson(path, "a non-plain object")
          const keys = Object.keys(v).sort(compareUtf16)
          parts.push("{")
          let first = true
          for (const key of keys) {
            const item = (v as Record<string, unknown>)[key]
            if (item === undefined) continue
            if (!first) parts.push(",")
            first = false
            parts.push(JSON.stringify(key), ":")
            const bad = walk(item, `${path}.${key}`)
            if (bad) return bad
          }
          parts.push("}")
        }
        seen.delete(v)
        return
      }
      default:
        return new NotJson(path, `a ${typeof v}`)
    }
  }
  const bad = walk(value, "$")
  return bad ?? parts.join("")
}

/** Whether a value is JSON that {@link canonicalJson} accepts (checked without building any text). */
export const isJson = (value: unknown): value is Json => checkJson(value, new Set(), true)

const checkJson = (value: unknown, seen: Set<object>, undefinedValues: boolean): boolean => {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true
    case "number":
      return Number.isFinite(value)
    case "object": {
      if (value === null) return true
      if (seen.has(value)) return false
      seen.add(value)
      let ok = true
      if (Array.isArray(value)) {
        for (let i = 0; ok && i < value.length; i++) ok = checkJson(value[i], seen, undefinedValues)
      } else {
        const proto = Object.getPrototypeOf(value)
        if (proto !== Object.prototype && proto !== null) return false
        for (const key in value) {
          const item = (value as Record<string, unknown>)[key]
          if (item === undefined ? !undefinedValues : !checkJson(item, seen, undefinedValues)) {
            ok = false
            break
          }
        }
      }
      seen.delete(value)
      return ok
    }
    default:
      return false
  }
}

/** Whether a value is a plain JSON object (the shape of tool arguments). */
export const isJsonObject = (value: unknown): value is { readonly [key: string]: Json } =>
  typeof value === "object" && value !== null && !Array.isArray(value) && isJson(value)

/**
 * Whether a value is a plain JSON object with no `undefined` values at any depth either: what a
 * hook sees of it is exactly what goes on the wire (JSON drops an undefined value; a hook would
 * still see its key).
 */
export const isStrictJsonObject = (value: unknown): value is { readonly [key: string]: Json } =>
  typeof value === "object" && value !== null && !Array.isArray(value) && checkJson(value, new Set(), false)

/** Hex SHA-256 of a string (UTF-8). */
export const sha256Hex = (text: string): string => hash("sha256", text, "hex")

/** Hex SHA-256 of the canonical JSON of a value, or NotJson. */
export const digestJson = (value: unknown): string | NotJson => {
  const text = canonicalJson(value)
  return typeof text === "string" ? sha256Hex(text) : text
}
