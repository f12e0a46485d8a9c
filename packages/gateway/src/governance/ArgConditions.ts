/**
 * `when.args` of a JSON rule: conditions on top-level argument keys, compiled into a predicate. equals and in
 * compare canonical JSON; a missing or non-string argument fails startsWith and matches (RE2) and satisfies
 * notStartsWith, so a deny rule written with it catches that too. within and notWithin place paths as the server
 * would (PathPlacement.ts); a path they cannot place is undecided, and the policy denies.
 */
import { Canonical, ConfigError, type JsonObject } from "@interlock/core"
import { RE2JS } from "re2js"
import type { ArgCondition } from "../config/Config.ts"
import { defaultPaths, isWithin, type PathSettings } from "./PathPlacement.ts"

/**
 * A compiled condition set over a call's arguments (to the server `serverId`): true, false, or
 * undefined when a path condition cannot be decided.
 */
export type ArgsPredicate = (args: JsonObject, serverId?: string) => boolean | undefined

/** The path settings of a server (by id; undefined: the call names none). */
export type PathsOf = (serverId: string | undefined) => PathSettings

type Test = (value: unknown, paths: PathsOf, serverId: string | undefined) => boolean | undefined

const canonical = (value: unknown): string => {
  const text = Canonical.canonicalJson(value)
  return typeof text === "string" ? text : "\u0000invalid"
}

/**
 * Whether a path argument is within `root`: a string, or a non-empty array of them (true when every
 * element is, false when none is, undefined when they differ or one is no string); "none" for a
 * value that is no path (a missing argument, a number...).
 */
const pathWithin = (value: unknown, root: string, settings: PathSettings): boolean | undefined | "none" => {
  const items = typeof value === "string" ? [value] : Array.isArray(value) && value.length > 0 ? value : undefined
  if (items === undefined) return "none"
  let some = false
  let every = true
  for (const item of items) {
    const inside = typeof item === "string" ? isWithin(item, root, settings) : undefined
    if (inside === undefined) return undefined
    some ||= inside
    every &&= inside
  }
  return every ? true : some ? undefined : false
}

const compileOne = (key: string, condition: ArgCondition, path: string): Array<Test> | ConfigError => {
  const tests: Array<Test> = []
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
    let regex: RE2JS
    try {
      regex = RE2JS.compile(condition.matches)
    } catch {
      return new ConfigError({
        path: `${path}.${key}.matches`,
        detail: "is not a valid RE2 regular expression (no backreferences or lookaround)"
      })
    }
    tests.push((value) => typeof value === "string" && regex.test(value))
  }
  if (condition.within !== undefined) {
    const root = condition.within
    tests.push((value, paths, serverId) => {
      const inside = pathWithin(value, root, paths(serverId))
      return inside === "none" ? false : inside
    })
  }
  if (condition.notWithin !== undefined) {
    const root = condition.notWithin
    tests.push((value, paths, serverId) => {
      const inside = pathWithin(value, root, paths(serverId))
      return inside === "none" ? true : inside === undefined ? undefined : !inside
    })
  }
  if (tests.length === 0) {
    return new ConfigError({
      path: `${path}.${key}`,
      detail: "needs at least one of equals, in, startsWith, notStartsWith, matches, within, notWithin"
    })
  }
  return tests
}

/**
 * Compiles `when.args` (every condition on every key must hold: false if one is false, else
 * undefined if one is undecided); `path` names it in errors; `paths` places path arguments.
 */
export const compileArgConditions = (
  conditions: { readonly [key: string]: ArgCondition },
  path: string,
  paths: PathsOf = defaultPaths
): ArgsPredicate | ConfigError => {
  const checks: Array<readonly [string, ReadonlyArray<Test>]> = []
  for (const [key, condition] of Object.entries(conditions)) {
    const tests = compileOne(key, condition, path)
    if (tests instanceof ConfigError) return tests
    checks.push([key, tests])
  }
  return (args, serverId) => {
    let decided = true
    for (const [key, tests] of checks) {
      const value = Object.hasOwn(args, key) ? args[key] : undefined
      for (const test of tests) {
        const held = test(value, paths, serverId)
        if (held === false) return false
        if (held === undefined) decided = false
      }
    }
    return decided ? true : undefined
  }
}
