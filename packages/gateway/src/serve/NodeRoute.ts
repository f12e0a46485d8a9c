/** The routes whose SDK transport writes the node:http response itself (`/mcp`, `/interceptors`). */
import type { Principal } from "@interlock/core"
import { Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import type { IncomingMessage, ServerResponse } from "node:http"
import { Caller } from "../front/http/GuardMiddleware.ts"
import { rpcError } from "../front/http/mcp/McpWire.ts"
import { nodeExchange } from "../front/http/RequestBody.ts"

/** Until the transport has ended the response (or the host has closed it, which interrupts the route). */
const ended = (res: ServerResponse): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    if (res.writableEnded) return resume(Effect.void)
    res.once("finish", () => resume(Effect.void))
  })

/** Already written by the transport; NodeHttpServer sends nothing for a response that has ended. */
const written = HttpServerResponse.empty()

/**
 * A route whose SDK transport writes the node:http response itself (`name` is its path, for the one error it
 * can raise): `handle` gets the raw request, response and caller. A failure before the answer began is a JSON-RPC
 * internal error; one after it ends the response as it is.
 */
export const nodeRoute = (
  name: string,
  handle: (req: IncomingMessage, res: ServerResponse, principal: Principal | undefined) => Promise<void>
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest | Caller> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const exchange = nodeExchange(request)
    if (exchange === undefined) return yield* Effect.die(new Error(`${name} is served on node:http only`))
    const { req, res } = exchange
    const { principal } = yield* Caller
    yield* Effect.tryPromise(() => handle(req, res, principal)).pipe(
      Effect.catch(() =>
        Effect.sync(() => {
          if (!res.headersSent) rpcError(res, 500, -32603, "Internal error")
          else res.end()
        })
      )
    )
    yield* ended(res)
    return written
  })
