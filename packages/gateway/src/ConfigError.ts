/**
 * Turning Schema issues into core's ConfigError, with the path at fault written the way a user
 * reads it (`policy.rules[2].decision`) and without quoting the value that was there.
 */
import { ConfigError } from "@interlock/core"
import { SchemaIssue } from "effect"

/** Formats a property path: numbers as `[n]`, identifiers as `.key`, other keys quoted. */
export const formatPath = (path: ReadonlyArray<PropertyKey>): string => {
  let out = ""
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`
    else if (typeof key === "string" && /^[A-Za-z_$][\w$]*$/.test(key)) out += out.length === 0 ? key : `.${key}`
    else out += `[${JSON.stringify(String(key))}]`
  }
  return out.length === 0 ? "(root)" : out
}

// Leaf messages that never quote the input: a config may hold a literal secret.
const leafHook: SchemaIssue.LeafHook = (issue) => {
  switch (issue._tag) {
    case "MissingKey":
      return "is required"
    case "UnexpectedKey":
      return "is not a known key"
    case "InvalidType":
      return `has the wrong type (expected ${expectedOf(issue)})`
    case "InvalidValue":
      return "has an invalid value"
    case "Forbidden":
      return "is not allowed"
    case "OneOf":
      return "matches more than one form"
  }
}

const expectedOf = (issue: SchemaIssue.InvalidType): string => {
  const ast = issue.ast as { _tag?: string }
  switch (ast._tag) {
    case "String":
      return "a string"
    case "Number":
      return "a number"
    case "Boolean":
      return "a boolean"
    case "Arrays":
      return "an array"
    case "Objects":
      return "an object"
    case "Literal":
      return `${JSON.stringify((issue.ast as unknown as { literal: unknown }).literal)}`
    default:
      return "another type"
  }
}

const checkHook: SchemaIssue.CheckHook = (issue) => {
  const expected = issue.filter.annotations?.expected
  return typeof expected === "string" ? `must be ${expected}` : undefined
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1({ leafHook, checkHook })

/** The first problem of a Schema issue as a ConfigError (prefixed with `prefix`, e.g. the file). */
export const fromIssue = (issue: SchemaIssue.Issue, prefix: ReadonlyArray<PropertyKey> = []): ConfigError => {
  const all = formatter(issue).issues
  const first = all[0]
  const path = formatPath([...prefix, ...(first?.path ?? []).map((segment) => (typeof segment === "object" ? segment.key : segment))])
  const more = all.length > 1 ? ` (and ${all.length - 1} more problem${all.length > 2 ? "s" : ""})` : ""
  return new ConfigError({ path, detail: `${first?.message ?? "is invalid"}${more}` })
}
