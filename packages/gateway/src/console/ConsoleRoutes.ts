/**
 * The web console's routes: the page at `/`, and its JSON API. `GET /api/state` gives recent
 * calls (filtered by its query), the charts' series and pending approvals with their deadlines;
 * `GET /api/calls/<id>` one call's whole audit row; each viewer only what it may see
 * (ConsoleAccess). `POST /api/approvals/<id>` answers an approval, for the digest the approver was
 * shown. Every route is behind the console's guard; a principal that may not use the console gets
 * 403 from every `/api/` path, routed or not. Query and body are checked with ConsoleInput's Schemas.
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { answerRefusal, type ConsoleViewer, sees, viewerFor } from "./ConsoleAccess.ts"
import { CONSOLE_HEADERS, CONSOLE_HTML } from "./ConsolePage.ts"
import { ConsoleInputError, parseAnswer, parseStateQuery } from "./ConsoleInput.ts"
import { callDetail, consoleState } from "./ConsoleState.ts"
import { Gateway, type GatewayShape } from "../Gateway.ts"
import { Caller, guarded, notFound, requestUrl } from "../front/http/GuardMiddleware.ts"
import { type GuardOptions, TOKEN_COOKIE } from "../front/http/HttpGuard.ts"
import { jsonResponse } from "../front/http/JsonResponse.ts"
import { requestBody } from "../front/http/RequestBody.ts"

type Response = HttpServerResponse.HttpServerResponse

const json = (status: number, body: unknown) => jsonResponse(status, body, { "cache-control": "no-store" })

/** Answers an Effect's success as JSON (404 when it is undefined), its failure (the store's) as 503. */
const answerWith = <A, E extends { readonly message: string }>(effect: Effect.Effect<A | undefined, E>): Effect.Effect<Response> =>
  Effect.match(effect, {
    onFailure: (error) => json(503, { error: error.message }),
    onSuccess: (value) => value === undefined ? json(404, { error: "no such call among the newest audit rows you may see" }) : json(200, value)
  })

/** The largest body an approval answer may have (bytes). */
const MAX_ANSWER_BYTES = 4096

/** An approval answer's body as JSON; undefined when it is oversized or not JSON (read and dropped: the request is still answered, with 400). */
const readJson = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<unknown> =>
  Effect.map(requestBody(request, MAX_ANSWER_BYTES), (body) => {
    try {
      return body === undefined ? undefined : JSON.parse(body.toString("utf8"))
    } catch {
      return undefined
    }
  })

const badInput = (error: ConsoleInputError) => json(400, { error: error.message, param: error.param })

const forbidden = json(403, { error: "Forbidden: this token may not use the console" })

/** Runs an API handler for the request's viewer; 403 for a principal that may not use the console. */
const forViewer = <R>(handler: (gateway: GatewayShape, viewer: ConsoleViewer) => Effect.Effect<Response, never, R>) =>
  Effect.gen(function*() {
    const gateway = yield* Gateway
    const { principal } = yield* Caller
    const viewer = viewerFor(gateway.plan, principal)
    return viewer === undefined ? forbidden : yield* handler(gateway, viewer)
  })

const page = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  if (request.method !== "GET") return notFound
  const { token } = yield* Caller
  // A token that came in the URL is kept in a cookie, so the page's own requests carry it.
  const cookie: Record<string, string> = token !== undefined && requestUrl(request).searchParams.has("token")
    ? { "set-cookie": `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/` }
    : {}
  return HttpServerResponse.text(CONSOLE_HTML, { headers: { ...CONSOLE_HEADERS, ...cookie } })
})

const state = forViewer((gateway, viewer) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const query = parseStateQuery(requestUrl(request).searchParams)
    return query instanceof ConsoleInputError ? Effect.succeed(badInput(query)) : answerWith(consoleState(gateway, viewer, query))
  })
)

const CALL_ID = /^[1-9][0-9]{0,15}$/

const call = forViewer((gateway, viewer) =>
  Effect.flatMap(HttpRouter.params, ({ id }) =>
    id !== undefined && CALL_ID.test(id)
      ? answerWith(callDetail(gateway, viewer, Number(id)))
      : Effect.succeed(notFound))
)

const APPROVAL_ID = /^[0-9a-f-]{36}$/

const noSuchApproval = json(404, { error: "no such pending approval" })

const approve = forViewer((gateway, viewer) =>
  Effect.gen(function*() {
    const { id } = yield* HttpRouter.params
    if (id === undefined || !APPROVAL_ID.test(id)) return notFound
    const body = parseAnswer(yield* readJson(yield* HttpServerRequest.HttpServerRequest))
    if (body instanceof ConsoleInputError) return badInput(body)
    const { decision, digest } = body
    // A pending approval the viewer may not see is, to it, no pending approval at all.
    const pending = gateway.approvals.list().find((entry) => entry.id === id && sees(viewer, entry.principal))
    if (pending === undefined) return noSuchApproval
    const refusal = answerRefusal(viewer, pending.principal, decision)
    if (refusal !== undefined) return json(403, { error: `Forbidden: ${refusal}` })
    if (digest !== pending.digest) return json(409, { error: "the pending call is not the one shown (digest differs): nothing was approved" })
    const answer = decision === "allow"
      ? { decision, by: viewer.id } as const
      : { decision, reason: `denied in the console by ${viewer.id}`, by: viewer.id } as const
    const answered = yield* gateway.approvals.answer(pending.id, answer, digest)
    return answered ? json(200, { ok: true }) : noSuchApproval
  })
)

// Any other `/api/` path: 403 to a principal that may not use the console, 404 to one that may.
const otherApi = forViewer(() => Effect.succeed(notFound))

/** The console's routes, each behind `guard` (the console's guard options). */
export const consoleRoutes = (guard: GuardOptions) => [
  HttpRouter.route("*", "/", guarded(guard)(page)),
  HttpRouter.route("GET", "/api/state", guarded(guard)(state)),
  HttpRouter.route("GET", "/api/calls/:id", guarded(guard)(call)),
  HttpRouter.route("POST", "/api/approvals/:id", guarded(guard)(approve)),
  HttpRouter.route("*", "/api/*", guarded(guard)(otherApi))
] as const
