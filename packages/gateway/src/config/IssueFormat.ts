/**
 * Turning Schema issues into core's ConfigError, with the path at fault written the way a user
 * reads it (`policy.rules[2].decision`) and without quoting the value that was there.
 */
import { ConfigError } from "@interlock/core"
import { type SchemaAST, SchemaIssue } from "effect"
import { nearestKey } from "./NearestKey.ts"
import { formatTable } from "./TextTable.ts"

/** The path of a problem with the whole config (and of a list of problems). */
export const ROOT = "(root)"

/** Formats a property path: numbers as `[n]`, identifiers as `.key`, other keys quoted. */
export const formatPath = (path: ReadonlyArray<PropertyKey>): string => {
  let out = ""
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`
    else if (typeof key === "string" && /^[A-Za-z_$][\w$]*$/.test(key)) out += out.length === 0 ? key : `.${key}`
    else out += `[${JSON.stringify(String(key))}]`
  }
  return out.length === 0 ? ROOT : out
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
  const ast = issue.ast
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
      return `${JSON.stringify(ast.literal)}`
    default:
      return "another type"
  }
}

// A check says what it expects, or (as core's matcher rules do) says what is wrong in a sentence of its own.
const checkHook: SchemaIssue.CheckHook = (issue) => {
  const expected = issue.filter.annotations?.expected
  if (typeof expected === "string") return `must be ${expected}`
  const message = issue.issue._tag === "InvalidValue" ? issue.issue.annotations?.message : undefined
  return typeof message === "string" ? message : undefined
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1({ leafHook, checkHook })

/** One problem of a config: where, and what is wrong there (never the value). */
export interface ConfigProblem {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

const keysOf = (ast: unknown): ReadonlyArray<string> => {
  const signatures =
    (ast as { readonly propertySignatures?: ReadonlyArray<{ readonly name: PropertyKey }> }).propertySignatures ?? []
  return signatures.flatMap((signature) => (typeof signature.name === "string" ? [signature.name] : []))
}

// The literals of a union of literals (such as a decision's "allow" | "deny" | "ask"), else undefined.
const literalsOf = (ast: SchemaAST.Union): ReadonlyArray<unknown> | undefined =>
  ast.types.length > 0 && ast.types.every((member) => member._tag === "Literal")
    ? ast.types.map((member) => (member as SchemaAST.Literal).literal)
    : undefined

/**
 * Every problem of a Schema issue, each with its path. An unknown key names the nearest key the
 * Schema knows at that level; a union (such as a server's stdio or HTTP form) reports the problems
 * of the member it came closest to (the fewest problems).
 */
export const configProblems = (
  issue: SchemaIssue.Issue,
  path: ReadonlyArray<PropertyKey> = []
): ReadonlyArray<ConfigProblem> => {
  switch (issue._tag) {
    case "Pointer":
      return configProblems(issue.issue, [...path, ...issue.path])
    case "Composite":
      return issue.issues.flatMap((inner) => configProblems(inner, path))
    case "UnexpectedKey": {
      const key = path[path.length - 1]
      const near = typeof key === "string" ? nearestKey(key, keysOf(issue.ast)) : undefined
      return [{ path, message: `is not a known key${near === undefined ? "" : ` (did you mean "${near}"?)`}` }]
    }
    case "AnyOf": {
      if (issue.issues.length === 0) {
        const literals = literalsOf(issue.ast)
        const message = literals === undefined
          ? "has the wrong type"
          : `must be one of ${literals.map((literal) => JSON.stringify(literal)).join(", ")}`
        return [{ path, message }]
      }
      const members = issue.issues.map((inner) => configProblems(inner, path))
      return members.reduce((best, next) => (next.length < best.length ? next : best))
    }
    default:
      return formatter(issue).issues.map((leaf) => ({
        path: [...path, ...(leaf.path ?? []).map((segment) => (typeof segment === "object" ? segment.key : segment))],
        message: leaf.message
      }))
  }
}

/**
 * A Schema issue as one ConfigError (paths prefixed with `prefix`): one problem names its path;
 * several are listed, one a line, aligned, under the path `(root)`.
 */
export const fromIssue = (issue: SchemaIssue.Issue, prefix: ReadonlyArray<PropertyKey> = []): ConfigError => {
  const problems = configProblems(issue, prefix)
  if (problems.length === 0) return new ConfigError({ path: formatPath(prefix), detail: "is invalid" })
  if (problems.length === 1) return new ConfigError({ path: formatPath(problems[0].path), detail: problems[0].message })
  const lines = formatTable(problems.map((problem) => [formatPath(problem.path), problem.message]))
  return new ConfigError({
    path: ROOT,
    detail: `${problems.length} problems:\n${lines.map((line) => `  ${line}`).join("\n")}`
  })
}
