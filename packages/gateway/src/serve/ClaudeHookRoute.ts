/**
 * `POST /claude/hook` on the gateway's HTTP face, what `interlock claude-hook --gateway URL` forwards: the body is
 * one Claude Code hook event as Claude Code wrote it, and the answer the local bridge's (ClaudeHookBridge.ts)
 * under the gateway's plan, as JSON `{ stdout, stderr, exitCode }`, audited as the caller's principal. The request
 * has passed the `/mcp` guard (Host, Origin, token).
 */
import { Effect } from "effect"
import { HttpServerRequest, type HttpServerResponse } from "effect/http"
import { AuditStore } from "../audit/AuditStore.ts"
import { answerEvent, CLAUDE_PRINCIPAL } from "../claude/ClaudeHookBridge.ts"
import { Caller } from "../front/http/GuardMiddleware.ts"
import { jsonResponse } from "../front/http/JsonResponse.ts"
import { requestBody } from "../front/http/RequestBody.ts"
import { Gateway } from "../runtime/Gateway.ts"

/** The path a forwarded hook event is posted to. */
export const CLAUDE_HOOK_PATH = "/claude/hook"

/** The largest event the route accepts (bytes): a Write's whole file content travels in it. */
export const MAX_EVENT_BYTES = 4 * 1024 * 1024

/** Answers one forwarded event, in the gateway's runner (so shutdown waits for it); the host going away cancels it. */
export const claudeHookRoute: Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  never,
  HttpServerRequest.HttpServerRequest | Caller | Gateway
> = Effect.gen(
  function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (request.method !== "POST") {
      return jsonResponse(405, { error: "Method not allowed: POST a Claude Code hook event" })
    }
    const body = yield* requestBody(request, MAX_EVENT_BYTES)
    if (body === undefined) return jsonResponse(413, { error: `Request body larger than ${MAX_EVENT_BYTES} bytes` })
    const gateway = yield* Gateway
    const { principal } = yield* Caller
    const answer = answerEvent(body.toString("utf8"), gateway.plan, { principal: principal?.id ?? CLAUDE_PRINCIPAL })
    const result = yield* Effect.promise((signal) =>
      gateway.deps.run(Effect.provideService(answer, AuditStore, gateway.store), signal)
    )
    return jsonResponse(200, result)
  }
)
