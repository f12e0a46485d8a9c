/**
 * Helpers of the downstream-credential tests: the gateway's log lines with their annotations, an
 * authentication check that takes the first of several to answer, and a tool call's text.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect, Logger, References } from "effect"
import type { Authenticate } from "./downstream-server.ts"

/** Runs `body` with the gateway's log lines (message, cause, annotations) pushed to `lines`. */
export const capturingLogs = <A, E, R>(lines: Array<string>, body: Effect.Effect<A, E, R>) =>
  Effect.provide(
    body,
    Logger.layer([
      Logger.make((entry) =>
        void lines.push(JSON.stringify({
          message: entry.message,
          cause: String(entry.cause),
          annotations: entry.fiber.getRef(References.CurrentLogAnnotations)
        }))
      )
    ])
  )

/** The subject of the first check that finds one. */
export const firstOf = (...checks: ReadonlyArray<Authenticate>): Authenticate => async (req) => {
  for (const check of checks) {
    const subject = await check(req)
    if (subject !== undefined) return subject
  }
  return undefined
}

/** A call's outcome as the host sees it: whether it is an error, its text, its `_meta`. */
export interface Answer {
  readonly isError: boolean
  readonly text: string
  readonly meta: Readonly<Record<string, unknown>> | undefined
}

/** Calls `name` with `args` through `client`. */
export const callTool = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.promise(async (): Promise<Answer> => {
    const result = await client.callTool({ name, arguments: args })
    const text = (result.content as Array<{ text?: string }>).map((block) => block.text ?? "").join("")
    return { isError: result.isError === true, text, meta: result._meta }
  })

/** Which revision a host speaks to the gateway. */
export type HostEra = "2025" | "2026"

/**
 * An SDK client of the gateway over Streamable HTTP, speaking `era` with `capabilities`, whose bearer token is
 * `token()` at each request (a host that refreshes its token keeps its session); closed with the scope.
 */
export const hostClient = (
  url: string,
  token: () => string,
  era: HostEra = "2025",
  capabilities: Record<string, unknown> = {}
) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client(
        { name: "credential-host", version: "1.0.0" },
        { capabilities, ...(era === "2026" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}) }
      )
      const fetchWithToken = (input: string | URL | Request, init?: RequestInit) => {
        const headers = new Headers(init?.headers)
        headers.set("authorization", `Bearer ${token()}`)
        return fetch(input, { ...init, headers })
      }
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: fetchWithToken }))
      return client
    }),
    (client) => Effect.promise(() => client.close().catch(() => undefined))
  )
