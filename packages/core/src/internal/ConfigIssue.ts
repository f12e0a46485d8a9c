/**
 * Reading a Schema issue of a config (policy rules, hook entries) as one problem: where it is and
 * what it is, so that a Layer build answers a ConfigError that names both.
 */
import type { SchemaIssue } from "effect"

/** The first problem of an issue: its path, the innermost issue there and the message a check gave. */
export interface Problem {
  readonly path: ReadonlyArray<PropertyKey>
  readonly issue: SchemaIssue.Issue
  /** What a check or a transformation said (such as a matcher's parse failure), if it said anything. */
  readonly message: string | undefined
}

const messageOf = (issue: SchemaIssue.Issue): string | undefined => {
  const message = issue._tag === "InvalidValue" ? issue.annotations?.message : undefined
  return typeof message === "string" ? message : undefined
}

/** The first problem of a Schema issue (decoded with `errors: "first"`, there is one). */
export const firstProblem = (issue: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey> = []): Problem => {
  switch (issue._tag) {
    case "Pointer":
      return firstProblem(issue.issue, [...path, ...issue.path])
    case "Composite":
      return issue.issues.length > 0 ? firstProblem(issue.issues[0], path) : { path, issue, message: undefined }
    case "AnyOf":
      return issue.issues.length > 0 ? firstProblem(issue.issues[0], path) : { path, issue, message: undefined }
    case "Filter":
    case "Encoding":
      return firstProblem(issue.issue, path)
    default:
      return { path, issue, message: messageOf(issue) }
  }
}

/** The value at a path of a raw input, or undefined when the path does not reach one. */
export const valueAt = (raw: unknown, path: ReadonlyArray<PropertyKey>): unknown => {
  let value = raw
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined
    value = (value as Record<PropertyKey, unknown>)[key]
  }
  return value
}
