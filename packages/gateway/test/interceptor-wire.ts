/**
 * A plain SDK host of the gateway's interceptors, for tests: a client of `/interceptors` over Streamable HTTP or
 * of `interlock serve --stdio --interceptors`, and `interceptors/list` / `interceptor/invoke` answered as a result,
 * or as the error's code (and message).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Effect, Schema } from "effect"
import { BIN } from "./cli-process.ts"
import { NODE } from "./e2e.ts"
import { modernHttpClient } from "./modern-wire.ts"

const AnyResult = Schema.toStandardSchemaV1(Schema.Record(Schema.String, Schema.Unknown))

/** An SDK client of an interceptor server over Streamable HTTP (a bearer token when given); closed with the scope. */
export const interceptorClient = (url: string, token?: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "plain-sdk-host", version: "1.0.0" })
      await client.connect(
        new StreamableHTTPClientTransport(
          new URL(url),
          token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } }
        )
      )
      return client
    }),
    (client) => Effect.promise(() => client.close().catch(() => undefined))
  )

/** The eras a plain SDK host of `/interceptors` speaks, each with how it connects with `token`. */
export const interceptorEras = (token: string) =>
  [
    ["2025-11-25", (url: string) => interceptorClient(url, token)],
    ["2026-07-28", (url: string) => modernHttpClient(url, { token })]
  ] as const

/** An SDK client of `interlock serve --stdio --interceptors --config file` run in `dir`, and its stderr so far. */
export const stdioInterceptorClient = (dir: string, file: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "plain-sdk-host", version: "1.0.0" })
      const transport = new StdioClientTransport({
        command: NODE,
        args: [BIN, "serve", "--stdio", "--interceptors", "--config", file],
        cwd: dir,
        stderr: "pipe"
      })
      let stderr = ""
      transport.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString()
      })
      await client.connect(transport)
      return { client, stderr: () => stderr }
    }),
    ({ client }) => Effect.promise(() => client.close().catch(() => undefined))
  )

/** One request's answer: its result, or its JSON-RPC error's code and message. */
export const answer = (client: Client, method: string, params: Record<string, unknown>) =>
  Effect.promise(() =>
    client.request({ method, params }, AnyResult).then(
      (result) => ({ ok: true as const, result: result as Record<string, any> }),
      (error: { code?: number; message?: string }) => ({ ok: false as const, code: error.code, message: error.message })
    )
  )

/** One request's answer: its result, or its JSON-RPC error's code. */
export const rpc = (client: Client, method: string, params: Record<string, unknown>) =>
  Effect.map(answer(client, method, params), (got) => got.ok ? got : { ok: false as const, code: got.code })

/** `interceptor/invoke` of one interceptor on one event's phase. */
export const invoke = (client: Client, name: string, event: string, phase: string, payload: unknown) =>
  rpc(client, "interceptor/invoke", { name, event, phase, payload })
