/**
 * The web console's routes: the page at `/`, and its JSON API. `/api/state` gives recent calls,
 * pending approvals and per-tool buckets, each viewer only what it may see (ConsoleAccess);
 * `POST /api/approvals/<id>` answers an approval, for the digest the approver was shown.
 */
import type { Principal } from "@interlock/core"
import type { IncomingMessage, ServerResponse } from "node:http"
import { Effect } from "effect"
import type { AuditRecord } from "./AuditRecord.ts"
import { toBuckets } from "./AuditRows.ts"
import { answerRefusal, type ConsoleViewer, sees, viewerFor } from "./ConsoleAccess.ts"
import { CONSOLE_HTML } from "./ConsolePage.ts"
import type { GatewayShape } from "./Gateway.ts"
import { readBody } from "./RequestBody.ts"

const json = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(body))

/** The largest body an approval answer may have (bytes). */
const MAX_ANSWER_BYTES = 4096

/** How many recent rows the console shows. */
const SHOWN_ROWS = 100

/** How many recent rows (of every principal) a caller's view is picked from. */
const CALLER_SCAN_ROWS = 2000

/** Calls and denials per tool and minute of some rows (a caller's chart, from its own rows only). */
const bucketsOf = (rows: ReadonlyArray<AuditRecord>, since: number, bucketMs: number) => {
  const groups = new Map<string, { server: string; tool: string; start: number; calls: number; denied: number }>()
  for (const row of rows) {
    if (row.time < since) continue
    const start = Math.floor(row.time / bucketMs) * bucketMs
    const key = JSON.stringify([row.server, row.tool, start])
    const group = groups.get(key) ?? { server: row.server, tool: row.tool, start, calls: 0, denied: 0 }
    group.calls += 1
    if (row.outcome === "denied" || row.outcome === "refused") group.denied += 1
    groups.set(key, group)
  }
  return toBuckets([...groups.values()])
}

/** The rows and buckets a viewer may see: all for an approver, its own for a caller. */
const visibleRows = (gateway: GatewayShape, viewer: ConsoleViewer, since: number) =>
  viewer.role === "approver"
    ? Effect.all({ rows: gateway.store.query({ limit: SHOWN_ROWS }), buckets: gateway.store.buckets(since, 60_000) })
    : Effect.map(gateway.store.query({ limit: CALLER_SCAN_ROWS }), (all) => {
      const own = all.filter((row) => row.principal === viewer.id)
      return { rows: own.slice(0, SHOWN_ROWS), buckets: bucketsOf(own, since, 60_000) }
    })

/** The console's state as the page polls it, for one viewer. */
export const consoleState = (gateway: GatewayShape, viewer: ConsoleViewer, minutes: number) =>
  Effect.gen(function*() {
    const now = Date.now()
    const { buckets, rows: calls } = yield* visibleRows(gateway, viewer, now - minutes * 60_000)
    return {
      now,
      viewer,
      calls: calls.map((row) => ({
        id: row.id,
        time: row.time,
        principal: row.principal ?? null,
        server: row.server,
        tool: row.tool,
        decision: row.decision ?? null,
        rule: row.rule ?? null,
        approval: row.approval ?? null,
        approvedBy: row.receipt?.approval?.by ?? null,
        outcome: row.outcome,
        durationMs: row.durationMs,
        hooks: (row.receipt?.hooks ?? []).map((run) => ({ id: run.id, event: run.event, status: run.status }))
      })),
      approvals: gateway.approvals.list().filter((pending) => sees(viewer, pending.principal)),
      buckets
    }
  })

/** The fields of an approval answer's body; an unreadable, oversized or non-JSON body gives none. */
const readAnswer = async (req: IncomingMessage): Promise<{ readonly decision?: unknown; readonly digest?: unknown }> => {
  try {
    // An oversized body is read and dropped (undefined): the request is still answered, with 400, never left hanging.
    const body = await readBody(req, MAX_ANSWER_BYTES)
    const parsed: unknown = JSON.parse(body?.toString("utf8") ?? "")
    return typeof parsed === "object" && parsed !== null ? parsed : {}
  } catch {
    return {}
  }
}

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
    res.writeHead(200, {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'",
      "x-frame-options": "DENY",
      ...headers
    }).end(CONSOLE_HTML)
    return true
  }
  const viewer = viewerFor(gateway.plan, principal)
  const api = url.pathname.startsWith("/api/")
  if (api && viewer === undefined) {
    json(res, 403, { error: "Forbidden: this token may not use the console" })
    return true
  }
  if (url.pathname === "/api/state" && req.method === "GET" && viewer !== undefined) {
    const minutes = Math.min(24 * 60, Math.max(1, Number(url.searchParams.get("minutes") ?? 30) || 30))
    const state = await Effect.runPromise(Effect.result(consoleState(gateway, viewer, minutes)))
    if (state._tag === "Failure") json(res, 503, { error: state.failure.message })
    else json(res, 200, state.success)
    return true
  }
  const match = /^\/api\/approvals\/([0-9a-f-]{36})$/.exec(url.pathname)
  if (match !== null && req.method === "POST" && viewer !== undefined) {
    const { decision, digest } = await readAnswer(req)
    if (decision !== "allow" && decision !== "deny") {
      json(res, 400, { error: "decision must be \"allow\" or \"deny\"" })
      return true
    }
    if (typeof digest !== "string") {
      json(res, 400, { error: "digest must be the pending call's digest, as the console lists it" })
      return true
    }
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
