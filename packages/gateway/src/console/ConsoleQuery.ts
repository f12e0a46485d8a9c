/**
 * The query parameters of the console's `/api/state`: the chart window and the filters by
 * principal, server, tool and outcome. Checked with a Schema; a bad, unknown or repeated parameter
 * is a ConsoleQueryError naming it (never quoting its value).
 */
import { CallOutcome } from "@interlock/core"
import { Exit, Schema } from "effect"
import type { AuditRecord } from "../AuditRecord.ts"
import { fromIssue } from "../ConfigError.ts"

/** Every outcome an audit row can have: core's, plus the gateway's pending, cancelled and refused. */
export const OUTCOMES = [...CallOutcome.literals, "pending", "cancelled", "refused"] as const

const Name = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(256))

/** The parameters of `/api/state`, as their URL strings decode. */
export const StateQuery = Schema.Struct({
  /** The charts' window, in whole minutes (1 to 1440; default 30). */
  minutes: Schema.optionalKey(Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1440 }))),
  principal: Schema.optionalKey(Name),
  server: Schema.optionalKey(Name),
  tool: Schema.optionalKey(Name),
  outcome: Schema.optionalKey(Schema.Literals(OUTCOMES))
})

/** The decoded parameters of `/api/state`. */
export type StateQuery = typeof StateQuery.Type

/** A query parameter of the console's API was bad: which one, and what was wrong. */
export class ConsoleQueryError extends Schema.TaggedError<ConsoleQueryError>()("ConsoleQueryError", {
  param: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `query parameter ${this.param} ${this.detail}`
  }
}

const decode = Schema.decodeUnknownExit(StateQuery)

/** The parameters of a URL, or the error naming the first bad one. */
export const parseStateQuery = (params: URLSearchParams): StateQuery | ConsoleQueryError => {
  const raw: Record<string, string> = {}
  for (const [key, value] of params) {
    if (!Object.hasOwn(StateQuery.fields, key)) return new ConsoleQueryError({ param: key, detail: "is not a known parameter" })
    if (Object.hasOwn(raw, key)) return new ConsoleQueryError({ param: key, detail: "is given more than once" })
    raw[key] = value
  }
  // Every key is a field's (an identifier), so the issue's path is the parameter's plain name.
  const exit = decode(raw)
  if (Exit.isSuccess(exit)) return exit.value
  const issue = exit.cause.reasons.find((reason) => reason._tag === "Fail")
  const error = issue === undefined ? undefined : fromIssue(issue.error.issue)
  return new ConsoleQueryError({ param: error?.path ?? "(unknown)", detail: error?.detail ?? "is invalid" })
}

/** Whether a row passes the query's filters (each filter given must equal the row's field). */
export const passes = (query: StateQuery, row: AuditRecord): boolean =>
  (query.principal === undefined || row.principal === query.principal) &&
  (query.server === undefined || row.server === query.server) &&
  (query.tool === undefined || row.tool === query.tool) &&
  (query.outcome === undefined || row.outcome === query.outcome)
