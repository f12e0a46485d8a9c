/**
 * The web console's routes: the page at `/`, and its JSON API. `GET /api/state` gives recent
 * calls (filtered by its query), the charts' series and pending approvals with their deadlines;
 * `GET /api/calls/<id>` one call's whole audit row; each viewer only what it may see
 * (ConsoleAccess). `POST /api/approvals/<id>` answers an approval, for the digest the approver was shown.
 */
import type { Principal } from "@interlock/core"
import type { IncomingMessage, ServerResponse } from "node:http"
import { Effect } from "effect"
import { answerRefusal, sees, viewerFor } from "./ConsoleAccess.ts"
import { CONSOLE_HEADERS, CONSOLE_HTML } from "./ConsolePage.ts"
import { ConsoleInputError, parseAnswer, parseStateQuery } from "./ConsoleInput.ts"
import { callDetail, consoleState } from "./ConsoleState.ts"
import type { GatewayShape } from "../Gateway.ts"
import { readBody } from "../front/http/RequestBody.ts"

const json = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(body))

/** Answers an Effect's success as JSON (404 when it is undefined), its failure (the store's) as 503. */
const answerWith = async <A, E extends { readonly message: string }>(res: ServerResponse, effect: Effect.Effect<A | undefined, E>) => {
  const result = await Effect.runPromise(Effect.result(effect))
  if (result._tag === "Failure") json(res, 503, { error: result.failure.message })
  else if (result.success === undefined) json(res, 404, { error: "no such call among the newest audit rows you may see" })
  else json(res, 200, result.success)
}

/** The largest body an approval answer may have (bytes). */
const MAX_ANSWER_BYTES = 4096

/** An approval answer's body as JSON; undefined when it is unreadable, oversized or not JSON. */
const readJson = async (req: IncomingMessage): Promise<unknown> => {
  try {
    // An oversized body is read and dropped (undefined): the request is still answered, with 400, never left hanging.
    const body = await readBody(req, MAX_ANSWER_BYTES)
    return body === undefined ? undefined : JSON.parse(body.toString("utf8"))
  } catch {
    return undefined
  }
}

const badInput = (res: ServerResponse, error: ConsoleInputError) => json(res, 400, { error: error.message, param: error.param })

/** Serves a console route; false when the path is not one. */
export const handleConsole = async (
  gateway: GatewayShape,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  headers: Record<string, string>,
  principal: Principal | undefined
): Promise<boolean> => {
  if (url.pathname === "/" && req.method === "GET") {
    res.writeHead(200, { ...CONSOLE_HEADERS, ...headers }).end(CONSOLE_HTML)
    return true
  }
  const viewer = viewerFor(gateway.plan, principal)
  const api = url.pathname.startsWith("/api/")
  if (api && viewer === undefined) {
    json(res, 403, { error: "Forbidden: this token may not use the console" })
    return true
  }
  if (url.pathname === "/api/state" && req.method === "GET" && viewer !== undefined) {
    const query = parseStateQuery(url.searchParams)
    if (query instanceof ConsoleInputError) badInput(res, query)
    else await answerWith(res, consoleState(gateway, viewer, query))
    return true
  }
  const call = /^\/api\/calls\/([1-9][0-9]{0,15})$/.exec(url.pathname)
  if (call !== null && req.method === "GET" && viewer !== undefined) {
    await answerWith(res, callDetail(gateway, viewer, Number(call[1])))
    return true
  }
  const match = /^\/api\/approvals\/([0-9a-f-]{36})$/.exec(url.pathname)
  if (match !== null && req.method === "POST" && viewer !== undefined) {
    const body = parseAnswer(await readJson(req))
    if (body instanceof ConsoleInputError) {
      badInput(res, body)
      return true
    }
    const { decision, digest } = body
    // A pending approval the viewer may not see is, to it, no pending approval at all.
    const pending = gateway.approvals.list().find((entry) => entry.id === match[1] && sees(viewer, entry.principal))
    if (pending === undefined) {
      json(res, 404, { error: "no such pending approval" })
      return true
    }
    const refusal = answerRefusal(viewer, pending.principal, decision)
    if (refusal !== undefined) {
      json(res, 403, { error: `Forbidden: ${refusal}` })
      return true
    }
    if (digest !== pending.digest) {
      json(res, 409, { error: "the pending call is not the one shown (digest differs): nothing was approved" })
      return true
    }
    const answer = decision === "allow"
      ? { decision, by: viewer.id } as const
      : { decision, reason: `denied in the console by ${viewer.id}`, by: viewer.id } as const
    const answered = await Effect.runPromise(gateway.approvals.answer(pending.id, answer, digest))
    json(res, answered ? 200 : 404, answered ? { ok: true } : { error: "no such pending approval" })
    return true
  }
  return false
}
