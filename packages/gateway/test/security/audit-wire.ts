/**
 * Wire helpers for the audit's security tests: the recording fixture server and what it received,
 * a raw Streamable HTTP host session (so a test holds a POST open and cancels or deletes under it),
 * and a wait for a condition that polls.
 */
import { Effect, Schedule } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { type IncomingMessage, request } from "node:http"
import * as path from "node:path"
import { NODE } from "../e2e.ts"

/** The recording fixture as a stdio server config that appends what it receives to `file`. */
export const recordingServer = (file: string) => ({
  command: NODE,
  args: [path.join(import.meta.dirname, "..", "fixtures", "recording-server.ts")],
  env: { RECORD_FILE: file }
})

/** The calls the recording server received, in order. */
export const received = (file: string): ReadonlyArray<{ readonly tool: string; readonly nonce: unknown }> =>
  existsSync(file)
    ? readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))
    : []

/** Polls `check` every 20 ms until it holds (the test's own timeout bounds it). */
export const waitFor = <E, R>(check: Effect.Effect<boolean, E, R>) =>
  check.pipe(Effect.repeat({ schedule: Schedule.spaced("20 millis"), until: (done) => done }), Effect.asVoid)

/** One HTTP exchange: its status (once the head arrives) and its whole body (once it ends). */
export interface Exchange {
  readonly status: Promise<number>
  readonly headers: Promise<Record<string, string | Array<string> | undefined>>
  readonly done: Promise<string>
}

// Nothing waits for the head: an event stream's head may come only with its first event.
const send = (url: string, method: string, headers: Record<string, string>, body?: unknown): Exchange => {
  let text = ""
  const req = request(url, { method, headers })
  const head = new Promise<IncomingMessage>((resolve, reject) => {
    req.on("response", resolve)
    req.on("error", reject)
  })
  const done = head.then((res) =>
    new Promise<string>((end) => {
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (text += chunk))
      res.on("close", () => end(text))
    })
  )
  req.end(body === undefined ? undefined : JSON.stringify(body))
  return { status: head.then((res) => res.statusCode ?? 0), headers: head.then((res) => res.headers), done }
}

/** A host session over raw Streamable HTTP (protocol 2025-06-18), initialized. */
export const rawSession = (url: string) =>
  Effect.promise(async () => {
    const base = { "content-type": "application/json", accept: "application/json, text/event-stream" }
    const init = send(url, "POST", base, {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw-host", version: "1" } }
    })
    await init.done
    const headers = {
      ...base,
      "mcp-session-id": String((await init.headers)["mcp-session-id"]),
      "mcp-protocol-version": "2025-06-18"
    }
    await send(url, "POST", headers, { jsonrpc: "2.0", method: "notifications/initialized" }).done
    return {
      /** Sends one request. */
      request: (id: number, method: string, params: unknown) =>
        send(url, "POST", headers, { jsonrpc: "2.0", id, method, params }),
      notify: (method: string, params: unknown) => send(url, "POST", headers, { jsonrpc: "2.0", method, params }),
      remove: () => send(url, "DELETE", headers)
    }
  })
