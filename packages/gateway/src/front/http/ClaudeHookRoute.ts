/**
 * `POST /claude/hook` on the gateway's HTTP face: what `interlock claude-hook --gateway URL`
 * forwards. The body is one Claude Code hook event, as Claude Code wrote it on the hook's stdin;
 * the answer is the local bridge's (ClaudeHookBridge.ts) under the gateway's plan, as JSON
 * `{ stdout, stderr, exitCode }`, audited in the gateway's store as the caller's principal. The
 * request has already passed the `/mcp` guard (Host, Origin, bearer token).
 */
import type { Principal } from "@interlock/core"
import { Effect } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { AuditStore } from "../../audit/AuditStore.ts"
import { answerEvent, CLAUDE_PRINCIPAL } from "../../claude/ClaudeHookBridge.ts"
import type { GatewayShape } from "../../Gateway.ts"
import { readBody } from "./RequestBody.ts"

/** The path a forwarded hook event is posted to. */
export const CLAUDE_HOOK_PATH = "/claude/hook"

/** The largest event the route accepts (bytes): a Write's whole file content travels in it. */
export const MAX_EVENT_BYTES = 4 * 1024 * 1024

const reply = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))
}

/** Answers one forwarded event, in the gateway's runner (so shutdown waits for it). */
export const handleClaudeHook = async (gateway: GatewayShape, req: IncomingMessage, res: ServerResponse, principal: Principal | undefined): Promise<void> => {
  if (req.method !== "POST") return reply(res, 405, { error: "Method not allowed: POST a Claude Code hook event" })
  const body = await readBody(req, MAX_EVENT_BYTES)
  if (body === undefined) return reply(res, 413, { error: `Request body larger than ${MAX_EVENT_BYTES} bytes` })
  const controller = new AbortController()
  res.once("close", () => controller.abort())
  const answer = answerEvent(body.toString("utf8"), gateway.plan, { principal: principal?.id ?? CLAUDE_PRINCIPAL })
  const result = await gateway.deps.run(Effect.provideService(answer, AuditStore, gateway.store), controller.signal)
  reply(res, 200, result)
}
