/**
 * Where a principal connects an `oauth` server in a browser: `GET /connect/<server>?link=...` asks to go on (a link
 * preview cannot spend the link), `POST` starts the flow and sends the browser to the authorization server with a
 * cookie that binds the flow to it, `GET /oauth/callback` completes it. No token here (a browser has none): the
 * sealed link and the cookie bind a flow to its principal. Only the gateway's own Host names are answered.
 */
import { Cause, Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { CALLBACK_PATH, CONNECT_TTL_MS, type ConnectRefused, type OAuthConnect } from "../credentials/OAuthConnect.ts"
import { requestUrl } from "../front/http/GuardMiddleware.ts"
import { hostAllowed } from "../front/http/HttpGuard.ts"
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

/** `GET`: the page that asks to go on; `POST`: the start of the flow. */
const connectPage = (connect: OAuthConnect) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const { server = "" } = yield* HttpRouter.params
    if (request.method === "GET") {
      const link = requestUrl(request).searchParams.get("link") ?? ""
      if (!connect.servers.has(server)) return page(404, "Not connected", "<p>There is no such server.</p>")
      return page(
        200,
        `Connect ${server}`,
        `<p>Interlock will send you to <b>${
          escapeHtml(server)
        }</b>'s sign-in. What you allow there is what the gateway ` +
          `may do there for the principal this link was made for, until you revoke it.</p>` +
          `<form method="post"><input type="hidden" name="link" value="${escapeHtml(link)}">` +
          `<button type="submit">Continue to sign in</button></form>`
      )
    }
    if (request.method !== "POST") return jsonResponse(405, { error: "Method not allowed" }, { allow: "GET, POST" })
    const body = yield* requestBody(request, MAX_FORM_BYTES)
    const link = new URLSearchParams(body?.toString("utf8") ?? "").get("link") ?? ""
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
export const connectRoutes = (connect: OAuthConnect, allowedHosts: ReadonlyArray<string>) => [
  HttpRouter.route("*", "/connect/:server", guardedHost(connectPage(connect), allowedHosts)),
  HttpRouter.route("*", CALLBACK_PATH, guardedHost(callback(connect), allowedHosts)),
  ...[...connect.metadataDocuments()].map(([path, document]) =>
    HttpRouter.route("*", path as `/${string}`, guardedHost(metadataDocument(document), allowedHosts))
  )
]
