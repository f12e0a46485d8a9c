/** The JSON answers of the HTTP face's own routes (the console's API, `/claude/hook`, the guard's refusals). */
import { HttpServerResponse } from "effect/http"

/** A JSON answer: `body` as JSON text, `content-type: application/json`, and any further headers. */
export const jsonResponse = (
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {}
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(JSON.stringify(body), { status, contentType: "application/json", headers })
