/**
 * The web console's JSON API as an HttpApi: `GET /api/state`, `GET /api/calls/<id>`, `POST /api/approvals/<id>`
 * (`{ decision, digest }`) and `POST /api/connections/revoke` (`{ principal, server }`), as JSON or JSON text.
 * HttpApi checks params, query and body with ConsoleInput's Schemas and sends the declared errors (ConsoleErrors.ts);
 * ConsoleCaller (outermost) and ConsoleInputCheck wrap every endpoint. ConsoleRoutes.ts implements it.
 */
import { Context, Schema, SchemaTransformation } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema } from "effect/http-api"
import type { ConsoleViewer } from "./ConsoleAccess.ts"
import {
  AnswerRefused,
  ConsoleForbidden,
  DigestDiffers,
  NoSuchApproval,
  NoSuchCall,
  NoSuchConnection,
  StoreUnavailable,
  UnknownId
} from "./ConsoleErrors.ts"
import {
  AnswerBody,
  AnswerText,
  ConsoleInputErrorBody,
  QUERY_OPTIONS,
  RevokeBody,
  RevokeText,
  StateQuery
} from "./ConsoleInput.ts"

/** Who is looking at the console, for the request being served (ConsoleCaller provides it). */
export class Viewer extends Context.Service<Viewer, ConsoleViewer>()("@interlock/gateway/ConsoleViewer") {}

/**
 * The console's guard and viewer check: a refused request, or a principal that may not use the console, never reaches
 * an endpoint.
 */
export class ConsoleCaller
  extends HttpApiMiddleware.Service<ConsoleCaller, { provides: Viewer }>()("@interlock/gateway/ConsoleCaller", {
    error: ConsoleForbidden
  })
{}

/**
 * The body cap (MAX_ANSWER_BYTES), and what HttpApi could not decode as the error naming it: a query parameter or body
 * field (400), an id (404).
 */
export class ConsoleInputCheck
  extends HttpApiMiddleware.Service<ConsoleInputCheck>()("@interlock/gateway/ConsoleInputCheck", {
    error: [ConsoleInputErrorBody, UnknownId]
  })
{}

/** A call's id as a path has it: a positive whole number of at most 16 digits. */
const CallId = Schema.String.check(Schema.isPattern(/^[1-9][0-9]{0,15}$/)).pipe(
  Schema.decodeTo(Schema.Number, SchemaTransformation.numberFromString)
)

/** A pending approval's id as a path has it (a UUID). */
const ApprovalId = Schema.String.check(Schema.isPattern(/^[0-9a-f-]{36}$/))

/**
 * What the state and a call's detail answer: built by ConsoleState from audit rows the store has
 * already decoded, and sent as their JSON text, as the page reads them.
 */
const AuditJson = Schema.Any

/** `GET /api/state`: the state the page polls, for the query's window and filters. */
const state = HttpApiEndpoint.get("state", "/api/state", {
  query: StateQuery,
  success: AuditJson,
  error: StoreUnavailable
}).annotate(HttpApi.QueryParseOptions, QUERY_OPTIONS)

/** `GET /api/calls/<id>`: one call's whole audit row. */
const call = HttpApiEndpoint.get("call", "/api/calls/:id", {
  params: { id: CallId },
  success: AuditJson,
  error: [NoSuchCall, StoreUnavailable]
})

/** `POST /api/approvals/<id>`: answers a pending approval, for the digest the approver was shown. */
const approve = HttpApiEndpoint.post("approve", "/api/approvals/:id", {
  params: { id: ApprovalId },
  payload: [AnswerBody, AnswerText.pipe(HttpApiSchema.asText())],
  success: Schema.Struct({ ok: Schema.Literal(true) }),
  error: [NoSuchApproval, AnswerRefused, DigestDiffers, StoreUnavailable]
})

/** `POST /api/connections/revoke`: forgets a principal's auth.oauth grant (the viewer's own; any, for an approver). */
const revoke = HttpApiEndpoint.post("revoke", "/api/connections/revoke", {
  payload: [RevokeBody, RevokeText.pipe(HttpApiSchema.asText())],
  success: Schema.Struct({ ok: Schema.Literal(true) }),
  error: NoSuchConnection
})

/** The console's API: one group, every endpoint behind ConsoleCaller, then ConsoleInputCheck. */
export const ConsoleApi = HttpApi.make("console").add(
  HttpApiGroup.make("console").add(state, call, approve, revoke).middleware(ConsoleInputCheck).middleware(
    ConsoleCaller
  )
)
