/**
 * Reading an HTTP request's body with a size cap, for `/mcp` and `/claude/hook` (the console's API caps its bodies with
 * effect/http's MaxBodySize, console/ConsoleRoutes.ts): a body over the cap is read to its end and dropped, so the
 * request can still be answered. The routes read the Node request behind effect/http's (NodeHttpServer serves them), so
 * a body is one Buffer, never a web stream.
 */
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect } from "effect"
import type { HttpServerRequest } from "effect/http"
import { IncomingMessage, ServerResponse } from "node:http"

/** Reads a body up to `limit` bytes; undefined when it is larger. */
export const readBody = (req: IncomingMessage, limit: number): Promise<Buffer | undefined> =>
  new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"])
    if (Number.isFinite(declared) && declared > limit) {
      req.resume()
      resolve(undefined)
      return
    }
    const chunks: Array<Buffer> = []
    let size = 0
    let over = false
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) over = true
      else if (!over) chunks.push(chunk)
    })
    req.on("end", () => resolve(over ? undefined : Buffer.concat(chunks)))
    req.on("error", reject)
  })

/**
 * The Node request and response behind an effect/http request; undefined unless it came through node:http (the HTTP
 * face's server is).
 */
export const nodeExchange = (
  request: HttpServerRequest.HttpServerRequest
): { readonly req: IncomingMessage; readonly res: ServerResponse } | undefined => {
  const req = NodeHttpServerRequest.toIncomingMessage(request)
  const res = NodeHttpServerRequest.toServerResponse(request)
  return req instanceof IncomingMessage && res instanceof ServerResponse ? { req, res } : undefined
}

/** An effect/http request's body, up to `limit` bytes: undefined when it is larger, a defect when it cannot be read. */
export const requestBody = (
  request: HttpServerRequest.HttpServerRequest,
  limit: number
): Effect.Effect<Buffer | undefined> =>
  Effect.suspend(() => {
    const exchange = nodeExchange(request)
    return exchange === undefined
      ? Effect.die(new Error("not a node:http request"))
      : Effect.promise(() => readBody(exchange.req, limit))
  })
