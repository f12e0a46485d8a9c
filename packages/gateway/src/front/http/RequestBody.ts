/**
 * Reading an HTTP request's body with a size cap, for `/mcp` and the console's API: a body over
 * the cap is read to its end and dropped, so the request can still be answered.
 */
import type { IncomingMessage } from "node:http"

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
