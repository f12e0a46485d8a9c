/**
 * What the console's API takes, checked with Schemas: the query parameters of `/api/state` (the
 * chart window and the filters by principal, server, tool and outcome) and the body of an approval
 * answer. A bad, unknown or repeated parameter, or a bad body field, is a ConsoleInputError naming
 * it (never quoting its value).
 */
import { CallOutcome } from "@interlock/core"
import { Exit, Schema } from "effect"
import { type AuditRecord, shownOutcome } from "../audit/AuditRecord.ts"
import { fromIssue } from "../config/IssueFormat.ts"

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

/** The body of `POST /api/approvals/<id>`: the answer, and the digest of the call the approver was shown. */
export const AnswerBody = Schema.Struct({
  decision: Schema.Literals(["allow", "deny"]),
  digest: Schema.String
})

/** The decoded body of an approval answer. */
export type AnswerBody = typeof AnswerBody.Type

/** A query parameter or body field of the console's API was bad: which one, and what was wrong. */
export class ConsoleInputError extends Schema.TaggedError<ConsoleInputError>()("ConsoleInputError", {
  in: Schema.Literals(["query", "body"]),
  param: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `${this.in === "query" ? "query parameter" : "body field"} ${this.param} ${this.detail}`
  }
}

// The first problem of a failed decode, as the error naming its field.
const firstProblem = <A>(exit: Exit.Exit<A, Schema.SchemaError>, where: "query" | "body"): A | ConsoleInputError => {
  if (Exit.isSuccess(exit)) return exit.value
  const reason = exit.cause.reasons.find((r) => r._tag === "Fail")
  const error = reason === undefined ? undefined : fromIssue(reason.error.issue)
  return new ConsoleInputError({ in: where, param: error?.path ?? "(root)", detail: error?.detail ?? "is invalid" })
}

const decodeQuery = Schema.decodeUnknownExit(StateQuery)
const decodeAnswer = Schema.decodeUnknownExit(AnswerBody)

/** The parameters of a URL, or the error naming the first bad one. */
export const parseStateQuery = (params: URLSearchParams): StateQuery | ConsoleInputError => {
  const raw: Record<string, string> = {}
  for (const [key, value] of params) {
    if (!Object.hasOwn(StateQuery.fields, key)) return new ConsoleInputError({ in: "query", param: key, detail: "is not a known parameter" })
    if (Object.hasOwn(raw, key)) return new ConsoleInputError({ in: "query", param: key, detail: "is given more than once" })
    raw[key] = value
  }
  // Every key is a field's (an identifier), so the issue's path is the parameter's plain name.
  return firstProblem(decodeQuery(raw), "query")
}

/** An approval answer's body (parsed JSON; undefined when it was unreadable or not JSON), or the error naming the bad field. */
export const parseAnswer = (body: unknown): AnswerBody | ConsoleInputError =>
  typeof body === "object" && body !== null && !Array.isArray(body)
    ? firstProblem(decodeAnswer(body), "body")
    : new ConsoleInputError({ in: "body", param: "(root)", detail: "must be a JSON object { decision, digest }" })

/** Whether a row passes the query's filters (each filter given must equal the row's field). */
export const passes = (query: StateQuery, row: AuditRecord): boolean =>
  (query.principal === undefined || row.principal === query.principal) &&
  (query.server === undefined || row.server === query.server) &&
  (query.tool === undefined || row.tool === query.tool) &&
  (query.outcome === undefined || shownOutcome(row) === query.outcome)
