/**
 * The web console's routes: the page at `/`, and its JSON API. `/api/state` gives recent calls,
 * pending approvals and per-tool buckets; `POST /api/approvals/<id>` answers an approval.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { Effect } from "effect"
import { CONSOLE_HTML } from "./ConsolePage.ts"
import type { GatewayShape } from "./Gateway.ts"
import { readBody } from "./RequestBody.ts"

const json = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(body))

/** The largest body an approval answer may have (bytes). */
const MAX_ANSWER_BYTES = 4096

/** The console's state as the page polls it. */
export const consoleState = (gateway: GatewayShape, minutes: number) =>
  Effect.gen(function*() {
    const now = Date.now()
    const calls = yield* gateway.store.query({ limit: 100 })
    const buckets = yield* gateway.store.buckets(now - minutes * 60_000, 60_000)
    return {
      now,
      calls: calls.map((row) => ({
        id: row.id,
        time: row.time,
        principal: row.principal ?? null,
        server: row.server,
        tool: row.tool,
        decision: row.decision ?? null,
        rule: row.rule ?? null,
        approval: row.approval ?? null,
        outcome: row.outcome,
        durationMs: row.durationMs,
        hooks: (row.receipt?.hooks ?? []).map((run) => ({ id: run.id, event: run.event, status: run.status }))
      })),
      approvals: gateway.approvals.list(),
      buckets
    }
  })

/** Serves a console route; false when the path is not one. */
export const handleConsole = async (
  gateway: GatewayShape,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  headers: Record<string, string>
): Promise<boolean> => {
  if (url.pathname === "/" && req.method === "GET") {
    res.writeHead(200, {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'",
      "x-frame-options": "DENY",
      ...headers
    }).end(CONSOLE_HTML)
    return true
  }
  if (url.pathname === "/api/state" && req.method === "GET") {
    const minutes = Math.min(24 * 60, Math.max(1, Number(url.searchParams.get("minutes") ?? 30) || 30))
    const state = await Effect.runPromise(Effect.result(consoleState(gateway, minutes)))
    if (state._tag === "Failure") json(res, 503, { error: state.failure.message })
    else json(res, 200, state.success)
    return true
  }
  const match = /^\/api\/approvals\/([0-9a-f-]{36})$/.exec(url.pathname)
  if (match !== null && req.method === "POST") {
    let decision: unknown
    try {
      // An oversized body is read and dropped (undefined): the request is still answered, with 400, never left hanging.
      const body = await readBody(req, MAX_ANSWER_BYTES)
      decision = (JSON.parse(body?.toString("utf8") ?? "") as { decision?: unknown }).decision
    } catch {
      decision = undefined
    }
    if (decision !== "allow" && decision !== "deny") {
      json(res, 400, { error: "decision must be \"allow\" or \"deny\"" })
      return true
    }
    const answered = await Effect.runPromise(
      gateway.approvals.answer(match[1], decision === "allow" ? { decision: "allow" } : { decision: "deny", reason: "denied in the console" })
    )
    json(res, answered ? 200 : 404, answered ? { ok: true } : { error: "no such pending approval" })
    return true
  }
  return false
}
