/**
 * `when.args` of a JSON rule: conditions on top-level argument keys, compiled into a predicate.
 * equals and in compare canonical JSON; startsWith, notStartsWith and matches need a string.
 * A missing or non-string argument fails startsWith and matches, and satisfies notStartsWith
 * (it does not start with the prefix), so a deny rule written with notStartsWith also catches it.
 * within and notWithin compare paths after resolving `.` and `..`, which a prefix test cannot.
 */
import { Canonical, ConfigError, type JsonObject } from "@interlock/core"
import { posix } from "node:path"
import type { ArgCondition } from "./Config.ts"

const normalize = (text: string): string => posix.normalize(text.replace(/\\/g, "/")).replace(/\/+$/, "") || "/"

/** Whether `value` names `root` or a path under it, once `.` and `..` are resolved (so `./sandbox/../etc` is not within `./sandbox`). */
export const isWithin = (value: string, root: string): boolean => {
  const target = normalize(value)
  const base = normalize(root)
  if (base === ".") return !target.startsWith("..") && !target.startsWith("/")
  return target === base || target.startsWith(base === "/" ? "/" : `${base}/`)
}

/** A compiled condition set over a call's arguments. */
export type ArgsPredicate = (args: JsonObject) => boolean

const canonical = (value: unknown): string => {
  const text = Canonical.canonicalJson(value)
  return typeof text === "string" ? text : "\u0000invalid"
}

const compileOne = (key: string, condition: ArgCondition, path: string): Array<(value: unknown) => boolean> | ConfigError => {
  const tests: Array<(value: unknown) => boolean> = []
  if (condition.equals !== undefined) {
    const expected = canonical(condition.equals)
    tests.push((value) => value !== undefined && canonical(value) === expected)
  }
  if (condition.in !== undefined) {
    const allowed = new Set(condition.in.map(canonical))
    tests.push((value) => value !== undefined && allowed.has(canonical(value)))
  }
  if (condition.startsWith !== undefined) {
    const prefix = condition.startsWith
    tests.push((value) => typeof value === "string" && value.startsWith(prefix))
  }
  if (condition.notStartsWith !== undefined) {
    const prefix = condition.notStartsWith
    tests.push((value) => typeof value !== "string" || !value.startsWith(prefix))
  }
  if (condition.matches !== undefined) {
    let regex: RegExp
    try {
      regex = new RegExp(condition.matches, "u")
    } catch {
      return new ConfigError({ path: `${path}.${key}.matches`, detail: "is not a valid regular expression" })
    }
    tests.push((value) => typeof value === "string" && regex.test(value))
  }
  if (condition.within !== undefined) {
    const root = condition.within
    tests.push((value) => typeof value === "string" && isWithin(value, root))
  }
  if (condition.notWithin !== undefined) {
    const root = condition.notWithin
    tests.push((value) => typeof value !== "string" || !isWithin(value, root))
  }
  if (tests.length === 0) {
    return new ConfigError({ path: `${path}.${key}`, detail: "needs at least one of equals, in, startsWith, notStartsWith, matches, within, notWithin" })
  }
  return tests
}

/** Compiles `when.args` (every condition on every key must hold); `path` names it in errors. */
export const compileArgConditions = (
  conditions: { readonly [key: string]: ArgCondition },
  path: string
): ArgsPredicate | ConfigError => {
  const checks: Array<readonly [string, ReadonlyArray<(value: unknown) => boolean>]> = []
  for (const [key, condition] of Object.entries(conditions)) {
    const tests = compileOne(key, condition, path)
    if (tests instanceof ConfigError) return tests
    checks.push([key, tests])
  }
  return (args) => {
    for (const [key, tests] of checks) {
      const value = Object.hasOwn(args, key) ? args[key] : undefined
      for (const test of tests) if (!test(value)) return false
    }
    return true
  }
}
