/**
 * What the console's API takes, as Schemas (ConsoleApi.ts declares them, HttpApi decodes with them): the query
 * parameters of `/api/state` (the chart window, the filters by principal, server, tool and outcome) and an
 * approval answer's body. A bad, unknown or repeated parameter, or a bad body field, is a ConsoleInputError naming
 * it, never quoting its value; parseStateQuery and parseAnswer decode as the API does.
 */
import { CallOutcome } from "@interlock/core"
import { Exit, Schema, type SchemaIssue, SchemaTransformation } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiSchema } from "effect/http-api"
import { type AuditRecord, shownOutcome } from "../audit/GatewayAuditRecord.ts"
import { configProblems, ROOT } from "../config/IssueFormat.ts"

/** Every outcome an audit row can have: core's, plus the gateway's pending, cancelled, refused and input_required. */
export const OUTCOMES = [...CallOutcome.literals, "pending", "cancelled", "refused", "input_required"] as const

const Name = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(256))

/**
 * Whole minutes written in ASCII digits only: a number literal such as `0x10`, `1e2`, `+5` or
 * ` 5` is refused rather than read the way JavaScript's Number would read it.
 */
const Minutes = Schema.String.check(Schema.isPattern(/^[0-9]{1,4}$/)).pipe(
  Schema.decodeTo(Schema.Number, SchemaTransformation.numberFromString)
).check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1440 }))

/** The parameters of `/api/state`, as their URL strings decode. */
export const StateQuery = Schema.Struct({
  /** The charts' window, in whole minutes (1 to 1440; default 30). */
  minutes: Schema.optionalKey(Minutes),
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

/** The same answer sent as text (`text/plain`, as `fetch` sends a string body): JSON text, decoded with Schema. */
export const AnswerText = Schema.fromJsonString(AnswerBody)

/** The body of a revocation: whose grant, toward which server. */
export const RevokeBody = Schema.Struct({ principal: Schema.String, server: Schema.String })

/** The same revocation sent as text: JSON text, decoded with Schema. */
export const RevokeText = Schema.fromJsonString(RevokeBody)

/** The largest body an approval answer may have (bytes); a larger one is refused before more of it is kept. */
export const MAX_ANSWER_BYTES = 4096

/** How the query of `/api/state` is decoded: a parameter the Schema does not name is an error, not ignored. */
export const QUERY_OPTIONS = { onExcessProperty: "error" } as const

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

// The message a ConsoleInputError is sent with, read back (for a client decoding the API's 400).
const fromMessage = (error: string, param: string): ConsoleInputError => {
  const where = error.startsWith("query parameter ") ? "query" : "body"
  const prefix = `${where === "query" ? "query parameter" : "body field"} ${param} `
  return new ConsoleInputError({
    in: where,
    param,
    detail: error.startsWith(prefix) ? error.slice(prefix.length) : error
  })
}

/**
 * A ConsoleInputError as the API sends it: 400, `{ error, param }` (its message, and the parameter or field it names).
 */
export const ConsoleInputErrorBody = Schema.Struct({ error: Schema.String, param: Schema.String }).pipe(
  Schema.decodeTo(
    Schema.toType(ConsoleInputError),
    SchemaTransformation.transform({
      decode: ({ error, param }) => fromMessage(error, param),
      encode: (error) => ({ error: error.message, param: error.param })
    })
  ),
  HttpApiSchema.status(400)
)

/** The body of an approval answer that is not a JSON object at all (unreadable, not JSON, or not an object). */
const NOT_AN_OBJECT = "must be a JSON object { decision, digest }"

/**
 * The first problem of a failed decode of the query or body, as the error naming its parameter or
 * field (never quoting its value). `query` is the query as it was decoded, parameter to value(s):
 * a parameter given more than once is said to be.
 */
export const inputError = (
  where: "query" | "body",
  issue: SchemaIssue.Issue,
  query: Readonly<Record<string, string | ReadonlyArray<string>>> = {}
): ConsoleInputError => {
  const problem = configProblems(issue)[0] ?? { path: [], message: "is invalid" }
  if (problem.path.length === 0) {
    return new ConsoleInputError({ in: where, param: ROOT, detail: where === "body" ? NOT_AN_OBJECT : problem.message })
  }
  const param = String(problem.path[0])
  const repeated = where === "query" && Object.hasOwn(query, param) && Array.isArray(query[param])
  return new ConsoleInputError({ in: where, param, detail: repeated ? "is given more than once" : problem.message })
}

/** The query of `/api/state` as HttpApi decodes it: a repeated parameter arrives as an array. */
const StateQueryCodec = Schema.toCodecArrayFromSingle(StateQuery)

const decodeQuery = Schema.decodeUnknownExit(StateQueryCodec, QUERY_OPTIONS)
const decodeAnswer = Schema.decodeUnknownExit(AnswerBody)

// The error of a failed decode: its first problem's, naming the parameter or field.
const errorOf = <A>(
  where: "query" | "body",
  exit: Exit.Failure<A, Schema.SchemaError>,
  query?: Readonly<Record<string, string | ReadonlyArray<string>>>
): ConsoleInputError => {
  const reason = exit.cause.reasons.find((r) => r._tag === "Fail")
  return reason === undefined
    ? new ConsoleInputError({ in: where, param: ROOT, detail: "is invalid" })
    : inputError(where, reason.error.issue, query)
}

/** The parameters of a URL, decoded as the API decodes them, or the error naming the first bad one. */
export const parseStateQuery = (params: URLSearchParams): StateQuery | ConsoleInputError => {
  const query = HttpServerRequest.searchParamsFromURL(new URL(`http://query.invalid/?${params}`))
  const exit = decodeQuery(query)
  return Exit.isSuccess(exit) ? exit.value : errorOf("query", exit, query)
}

/**
 * An approval answer's body (parsed JSON; undefined when it was unreadable or not JSON), or the error naming the bad
 * field.
 */
export const parseAnswer = (body: unknown): AnswerBody | ConsoleInputError => {
  const exit = decodeAnswer(body)
  return Exit.isSuccess(exit) ? exit.value : errorOf("body", exit)
}

/** Whether a row passes the query's filters (each filter given must equal the row's field). */
export const passes = (query: StateQuery, row: AuditRecord): boolean =>
  (query.principal === undefined || row.principal === query.principal) &&
  (query.server === undefined || row.server === query.server) &&
  (query.tool === undefined || row.tool === query.tool) &&
  (query.outcome === undefined || shownOutcome(row) === query.outcome)
