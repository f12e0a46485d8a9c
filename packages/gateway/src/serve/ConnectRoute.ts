/**
 * Where a principal connects an `oauth` server in a browser: `GET /connect/<server>?link=...` names the principal and
 * asks to go on (a link preview cannot spend the link), `POST` (from that page only) starts the flow with a cookie
 * that binds it to the browser, `GET /oauth/callback` completes it. No token here (a browser has none): the sealed
 * link and the cookie bind a flow to its principal. Only the gateway's own Host names are answered.
 */
import { Cause, Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { CALLBACK_PATH, CONNECT_TTL_MS, type ConnectRefused, type OAuthConnect } from "../credentials/OAuthConnect.ts"
import { requestUrl } from "../front/http/GuardMiddleware.ts"
import { type GuardOptions, hostAllowed, originAllowed, tokenOf } from "../front/http/HttpGuard.ts"
import { jsonResponse } from "../front/http/JsonResponse.ts"
import { requestBody } from "../front/http/RequestBody.ts"

export { CALLBACK_PATH }

/** The largest form a connect page posts back (its link), in bytes. */
const MAX_FORM_BYTES = 8 * 1024

/** The pages' headers: nothing but their own inline style, a form that posts only here, no framing, no referrer. */
const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store"
}

/** Text for HTML: `& < > " '` escaped. */
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const page = (status: number, title: string, body: string) =>
  HttpServerResponse.text(
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
      `<style>body{font:16px system-ui;max-width:36em;margin:4em auto;padding:0 1em}</style></head>` +
      `<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`,
    { status, contentType: "text/html; charset=utf-8", headers: PAGE_HEADERS }
  )

const refused = (error: ConnectRefused) =>
  page(error.reason === "server" ? 404 : 400, "Not connected", `<p>${escapeHtml(error.message)}.</p>`)

/** A failure that is no refusal (a defect) answers a fixed page: nothing of what failed is shown. */
const failedPage = page(500, "Not connected", "<p>The connection failed. Ask for a new link and try again.</p>")

const guardedHost = <E, R>(
  handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest>,
  allowedHosts: ReadonlyArray<string>
) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    hostAllowed(request.headers, allowedHosts)
      ? handler.pipe(
        Effect.catchCause((
          cause
        ) => (Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : Effect.succeed(failedPage)))
      )
      : Effect.succeed(jsonResponse(403, { error: "Forbidden: Host header not allowed" })))

/**
 * Whether a POST comes from the gateway's own page: its Origin is one of the gateway's (a browser sends one with every
 * form it posts), and the browser does not call it cross-site. A page elsewhere cannot start a flow with a link of
 * its own in someone else's browser.
 */
const fromOwnPage = (request: HttpServerRequest.HttpServerRequest, allowedOrigins: ReadonlyArray<string>): boolean => {
  const origin = request.headers.origin
  const site = request.headers["sec-fetch-site"]
  return origin !== undefined && originAllowed(origin, allowedOrigins) && (site === undefined || site === "same-origin")
}

/** Who a browser is signed in to the gateway as (its console cookie, or a bearer header), when it says. */
type SignedIn = (request: HttpServerRequest.HttpServerRequest) => string | undefined

/** A page for a browser signed in as another principal than the link's: the link grants it nothing. */
const otherPrincipal = page(
  403,
  "Not connected",
  "<p>This link is for another principal than the one this browser is signed in to the gateway as.</p>"
)

/** `GET`: the page that names the link's principal and asks to go on; `POST`: the start of the flow. */
const connectPage = (connect: OAuthConnect, allowedOrigins: ReadonlyArray<string>, signedIn: SignedIn) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const { server = "" } = yield* HttpRouter.params
    const as = signedIn(request)
    if (request.method === "GET") {
      const link = requestUrl(request).searchParams.get("link") ?? ""
      const opened = yield* Effect.result(connect.linkPrincipal(server, link))
      if (opened._tag === "Failure") return refused(opened.failure)
      if (as !== undefined && as !== opened.success) return otherPrincipal
      const who = escapeHtml(opened.success)
      const where = escapeHtml(server)
      return page(
        200,
        `Connect ${server}`,
        `<p>This link connects <b>${where}</b> for the Interlock principal <b>${who}</b>. ` +
          `If that is not you, close this page.</p>` +
          `<p>Interlock will send you to ${where}'s sign-in. What you allow there is what the gateway may do ` +
          `there for ${who}, until it is revoked.</p>` +
          `<form method="post"><input type="hidden" name="link" value="${escapeHtml(link)}">` +
          `<button type="submit">Continue to sign in</button></form>`
      )
    }
    if (request.method !== "POST") return jsonResponse(405, { error: "Method not allowed" }, { allow: "GET, POST" })
    if (!fromOwnPage(request, allowedOrigins)) {
      return page(403, "Not connected", "<p>The form was not sent from this gateway's own page.</p>")
    }
    const body = yield* requestBody(request, MAX_FORM_BYTES)
    const link = new URLSearchParams(body?.toString("utf8") ?? "").get("link") ?? ""
    if (as !== undefined) {
      const principal = yield* Effect.result(connect.linkPrincipal(server, link))
      if (principal._tag === "Success" && principal.success !== as) return otherPrincipal
    }
    const started = yield* Effect.result(connect.start(server, link))
    if (started._tag === "Failure") return refused(started.failure)
    const next = started.success
    if (next._tag === "Connected") {
      return page(200, "Connected", `<p>${escapeHtml(server)} is connected. Go back and try again.</p>`)
    }
    const secure = next.url.protocol === "https:" || requestUrl(request).protocol === "https:"
    const cookie = `${next.cookie.name}=${next.cookie.value}; HttpOnly; SameSite=Lax; Path=${CALLBACK_PATH}; ` +
      `Max-Age=${CONNECT_TTL_MS / 1000}${secure ? "; Secure" : ""}`
    return HttpServerResponse.empty({
      status: 303,
      headers: { ...PAGE_HEADERS, location: next.url.href, "set-cookie": cookie }
    })
  })

/** `GET /oauth/callback`: the authorization server's answer, for its state's flow, in the browser it began in. */
const callback = (connect: OAuthConnect) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (request.method !== "GET") return jsonResponse(405, { error: "Method not allowed" }, { allow: "GET" })
    const url = requestUrl(request)
    const done = yield* Effect.result(connect.finish(url.searchParams, (name) => request.cookies[name]))
    if (done._tag === "Failure") return refused(done.failure)
    return page(
      200,
      "Connected",
      `<p>${escapeHtml(done.success.server)} is connected. Go back to your host and try again.</p>`
    )
  })

/** A client ID metadata document: public, so that an authorization server can fetch it. */
const metadataDocument = (document: Readonly<Record<string, unknown>>) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
    request.method === "GET"
      ? jsonResponse(200, document, { "cache-control": "max-age=300" })
      : jsonResponse(405, { error: "Method not allowed" }, { allow: "GET" }))

/**
 * The connect routes of `connect`'s servers and their client ID metadata documents (at the paths of their
 * `clientMetadataUrl`), answered under `allowedHosts` only.
 */
export const connectRoutes = (
  connect: OAuthConnect,
  guard: Pick<GuardOptions, "allowedHosts" | "allowedOrigins" | "principalFor">
) => [
  HttpRouter.route(
    "*",
    "/connect/:server",
    guardedHost(
      connectPage(connect, guard.allowedOrigins, (request) => {
        const found = tokenOf(request.headers, requestUrl(request))
        return found === undefined ? undefined : guard.principalFor(found.token)?.id
      }),
      guard.allowedHosts
    )
  ),
  HttpRouter.route("*", CALLBACK_PATH, guardedHost(callback(connect), guard.allowedHosts)),
  ...[...connect.metadataDocuments()].map(([path, document]) =>
    HttpRouter.route("*", path as `/${string}`, guardedHost(metadataDocument(document), guard.allowedHosts))
  )
]
