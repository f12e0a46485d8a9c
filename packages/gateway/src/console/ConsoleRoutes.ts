/**
 * The web console's routes: the page at `/` and its JSON API (ConsoleApi.ts). `GET /api/state` gives recent calls,
 * the charts' series, pending approvals and auth.oauth connections; `GET /api/calls/<id>` one call's audit row; each
 * viewer only what it may see (ConsoleAccess). `POST /api/approvals/<id>` answers an approval for the digest shown,
 * `POST /api/connections/revoke` forgets a grant. A principal that may not use the console gets 403 from `/api/`.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { ByteSize, Effect, Layer, type Types } from "effect"
import { HttpEffect, HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder, type HttpApiEndpoint, HttpApiError } from "effect/http-api"
import { ROOT } from "../config/IssueFormat.ts"
import { Caller, guarded, notFound, requestUrl } from "../front/http/GuardMiddleware.ts"
import { type GuardOptions, TOKEN_COOKIE } from "../front/http/HttpGuard.ts"
import { jsonResponse } from "../front/http/JsonResponse.ts"
import { Gateway } from "../runtime/Gateway.ts"
import { answerRefusal, sees, viewerFor } from "./ConsoleAccess.ts"
import { ConsoleApi, ConsoleCaller, ConsoleInputCheck, Viewer } from "./ConsoleApi.ts"
import {
  AnswerRefused,
  CONSOLE_FORBIDDEN,
  ConsoleForbidden,
  DigestDiffers,
  NoSuchApproval,
  NoSuchCall,
  NoSuchConnection,
  StoreUnavailable,
  UnknownId
} from "./ConsoleErrors.ts"
import { ConsoleInputError, inputError, MAX_ANSWER_BYTES } from "./ConsoleInput.ts"
import { CONSOLE_HEADERS, CONSOLE_HTML } from "./ConsolePage.ts"
import { callDetail, consoleState } from "./ConsoleState.ts"

/** The console's answers are never cached. */
const NO_STORE = { "cache-control": "no-store" } as const

const noStore: HttpEffect.PreResponseHandler = (_request, response) =>
  Effect.succeed(HttpServerResponse.setHeaders(response, NO_STORE))

/**
 * ConsoleCaller: the console's guard, then the viewer (403 for a principal that may not use the console); the API's
 * answers are not cached.
 */
const callerLayer = (guard: GuardOptions) =>
  Layer.effect(
    ConsoleCaller,
    Effect.gen(function*() {
      const gateway = yield* Gateway
      const middleware: typeof ConsoleCaller.Service = (endpoint) =>
        guarded(guard)(Effect.gen(function*() {
          yield* HttpEffect.appendPreResponseHandler(noStore)
          const viewer = viewerFor(gateway.plan, (yield* Caller).principal)
          if (viewer === undefined) return yield* new ConsoleForbidden({ error: CONSOLE_FORBIDDEN })
          return yield* Effect.provideService(endpoint, Viewer, viewer)
        }))
      return middleware
    })
  )

const isBodyTooLarge = (defect: unknown): boolean =>
  HttpServerError.isHttpServerError(defect) && defect.reason._tag === "RequestParseError" &&
  defect.reason.reason === "BodyTooLarge"

/**
 * What HttpApi could not decode (the id, the query or the body), as the error naming it; undefined for any other schema
 * error.
 */
const decodeFailure = (
  error: HttpApiError.HttpApiSchemaError
): Effect.Effect<never, ConsoleInputError | UnknownId, HttpServerRequest.ParsedSearchParams> | undefined =>
  error.kind === "Params"
    ? Effect.fail(new UnknownId({ error: "Not found" }))
    : error.kind === "Query"
    ? Effect.flatMap(
      HttpServerRequest.ParsedSearchParams,
      (query) => Effect.fail(inputError("query", error.cause.issue, query))
    )
    : error.kind === "Payload"
    ? Effect.fail(inputError("body", error.cause.issue))
    : undefined

/** HttpApi's answer to a body of a type the endpoint declares no payload for (plain text, not the API's JSON). */
const UNSUPPORTED_MEDIA_TYPE = 415

// A body of a type the endpoint does not take: a 400 naming the types it takes, as for any other bad body.
const unsupportedType = (declared: HttpApiEndpoint.Top) =>
  new ConsoleInputError({
    in: "body",
    param: ROOT,
    detail: `must be sent as ${[...declared.payload.keys()].join(" or ")}`
  })

// The endpoint with its body capped, and its decode failures as the errors naming what was wrong.
const checked = <R>(
  endpoint: Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled, R>,
  declared: HttpApiEndpoint.Top
) =>
  endpoint.pipe(
    Effect.flatMap((response) =>
      response.status === UNSUPPORTED_MEDIA_TYPE ? Effect.fail(unsupportedType(declared)) : Effect.succeed(response)
    ),
    Effect.catchDefect((defect) =>
      isBodyTooLarge(defect)
        ? Effect.fail(
          new ConsoleInputError({ in: "body", param: ROOT, detail: `is larger than ${MAX_ANSWER_BYTES} bytes` })
        )
        : Effect.die(defect)
    ),
    Effect.catch((
      error
    ): Effect.Effect<never, ConsoleInputError | UnknownId | Types.unhandled, HttpServerRequest.ParsedSearchParams> =>
      (HttpApiError.HttpApiSchemaError.is(error) ? decodeFailure(error) : undefined) ?? Effect.fail(error)
    ),
    Effect.provideService(HttpServerRequest.MaxBodySize, ByteSize.bytes(MAX_ANSWER_BYTES))
  )

/**
 * ConsoleInputCheck: a body is read up to MAX_ANSWER_BYTES, the rest drained unkept (the request
 * is still answered: 400); a bad id is a 404, a bad query parameter or body field (or a body of a
 * type the endpoint does not take) a 400 naming it.
 */
const inputCheckLayer = Layer.succeed(
  ConsoleInputCheck,
  (endpoint, { endpoint: declared }) => checked(endpoint, declared)
)

/** The store's failure to read, as the API's 503. */
const fromStore = <A, E extends { readonly message: string }>(
  read: Effect.Effect<A, E>
): Effect.Effect<A, StoreUnavailable> =>
  Effect.mapError(read, (error) => new StoreUnavailable({ error: error.message }))

const noSuchApproval = new NoSuchApproval({ error: "no such pending approval" })

/** The API's handlers, over the Gateway of the layer that builds them. */
const handlers = HttpApiBuilder.group(ConsoleApi, "console", (api) =>
  Effect.map(Gateway, (gateway) =>
    api
      .handle("state", ({ query }) =>
        Effect.gen(function*() {
          const viewer = yield* Viewer
          const state = yield* fromStore(consoleState(gateway, viewer, query))
          const connect = gateway.credentials.connect
          // The viewer's own auth.oauth grants (an approver's: everyone's), when a server has the form.
          return connect === undefined
            ? state
            : { ...state, connections: connect.connections().filter((held) => sees(viewer, held.principal)) }
        }))
      .handle("revoke", ({ payload: { principal, server } }) =>
        Effect.gen(function*() {
          const viewer = yield* Viewer
          const connect = gateway.credentials.connect
          // A grant the viewer may not see is, to it, no grant at all.
          if (connect === undefined || !sees(viewer, principal) || !connect.revoke(principal, server)) {
            return yield* new NoSuchConnection({ error: "no such connection that you may see" })
          }
          return { ok: true } as const
        }))
      .handle("call", ({ params }) =>
        Effect.gen(function*() {
          const row = yield* fromStore(callDetail(gateway, yield* Viewer, params.id))
          return row ?? (yield* new NoSuchCall({ error: "no such call among the newest audit rows you may see" }))
        }))
      .handle("approve", ({ params: { id }, payload: { decision, digest } }) =>
        Effect.gen(function*() {
          const viewer = yield* Viewer
          // A pending approval the viewer may not see is, to it, no pending approval at all.
          // Every replica's pending approvals: one waiting on another replica is answered here as well.
          const pending = (yield* fromStore(gateway.approvals.listAll)).find((entry) =>
            entry.id === id && sees(viewer, entry.principal)
          )
          if (pending === undefined) return yield* noSuchApproval
          const refusal = answerRefusal(viewer, pending.principal, decision)
          if (refusal !== undefined) return yield* new AnswerRefused({ error: `Forbidden: ${refusal}` })
          if (digest !== pending.digest) {
            return yield* new DigestDiffers({
              error: "the pending call is not the one shown (digest differs): nothing was approved"
            })
          }
          const answer = decision === "allow"
            ? { decision, by: viewer.id } as const
            : { decision, reason: `denied in the console by ${viewer.id}`, by: viewer.id } as const
          const answered = yield* fromStore(gateway.approvals.answer(pending.id, answer, digest))
          return answered ? { ok: true } as const : yield* noSuchApproval
        }))))

/** The console's API on the HTTP face's router, each request behind `guard` (the console's guard options). */
export const consoleApi = (guard: GuardOptions) =>
  HttpApiBuilder.layer(ConsoleApi).pipe(
    Layer.provide(handlers),
    Layer.provide([callerLayer(guard), inputCheckLayer, NodeHttpServer.layerHttpServices])
  )

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

// Any other `/api/` path: 403 to a principal that may not use the console, 404 to one that may.
const otherApi = Effect.gen(function*() {
  const gateway = yield* Gateway
  const { principal } = yield* Caller
  return viewerFor(gateway.plan, principal) === undefined
    ? jsonResponse(403, { error: CONSOLE_FORBIDDEN }, NO_STORE)
    : notFound
})

/** The console's routes besides its API (consoleApi): the page, and every other `/api/` path, each behind `guard`. */
export const consoleRoutes = (guard: GuardOptions) =>
  [
    HttpRouter.route("*", "/", guarded(guard)(page)),
    HttpRouter.route("*", "/api/*", guarded(guard)(otherApi))
  ] as const
