/**
 * For tests of the 2026-07-28 front: SDK 2.4 clients that negotiate that revision (pinned, so a
 * fallback to 2025 fails loudly) over HTTP and stdio, and raw POSTs with a hand-made `_meta`
 * envelope for what a client library would never send.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY
} from "@modelcontextprotocol/server"
import { Effect } from "effect"

/** The revision the modern tests speak. */
export const MODERN = "2026-07-28"

/** A valid per-request envelope, as a modern client sends it in `_meta`. */
export const envelope = (name = "raw-host", capabilities: Record<string, unknown> = {}) => ({
  [PROTOCOL_VERSION_META_KEY]: MODERN,
  [CLIENT_INFO_META_KEY]: { name, version: "9.9.9" },
  [CLIENT_CAPABILITIES_META_KEY]: capabilities
})

/**
 * What a raw POST got back: status, headers, and the body (parsed when it is JSON, the text of every SSE event
 * otherwise).
 */
export interface RawAnswer {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly json: any
}

/**
 * POSTs one JSON-RPC message to `url`; the standard headers follow the body unless `headers` overrides them (undefined
 * drops one).
 */
export const modernPost = (
  url: string,
  message: Record<string, unknown>,
  headers: Record<string, string | undefined> = {}
) =>
  Effect.promise(async (): Promise<RawAnswer> => {
    const params = message.params as { name?: string; uri?: string } | undefined
    const base: Record<string, string | undefined> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": String(message.method),
      ...(params?.name !== undefined
        ? { "mcp-name": params.name }
        : params?.uri !== undefined
        ? { "mcp-name": params.uri }
        : {})
    }
    const sent = Object.fromEntries(
      Object.entries({ ...base, ...headers }).filter((entry): entry is [string, string] => entry[1] !== undefined)
    )
    const response = await fetch(url, {
      method: "POST",
      headers: sent,
      body: JSON.stringify({ jsonrpc: "2.0", ...message })
    })
    const text = await response.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      const data = text.split("\n").filter((line) => line.startsWith("data: ")).map((line) => JSON.parse(line.slice(6)))
      json = data.at(-1)
    }
    return { status: response.status, headers: response.headers, text, json }
  })

const connect = (client: Client, transport: StreamableHTTPClientTransport | StdioClientTransport) =>
  Effect.acquireRelease(
    Effect.promise(() => client.connect(transport).then(() => client)),
    () => Effect.promise(() => client.close().catch(() => undefined))
  )

/** Options of a modern test client. */
export interface ModernClientOptions {
  readonly token?: string
  readonly name?: string
  readonly capabilities?: Record<string, unknown>
}

/** An SDK 2.4 client pinned to 2026-07-28 (no fallback), for `transport`'s gateway. */
export const modernClient = (options: ModernClientOptions = {}) =>
  new Client({ name: options.name ?? "modern-host", version: "2.0.0" }, {
    capabilities: options.capabilities ?? {},
    versionNegotiation: { mode: { pin: MODERN } }
  })

/** A modern client on the gateway's HTTP front; closed with the scope. */
export const modernHttpClient = (url: string, options: ModernClientOptions = {}) =>
  connect(
    modernClient(options),
    new StreamableHTTPClientTransport(
      new URL(url),
      options.token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${options.token}` } } }
    )
  )

/** A client on a stdio child process: pinned to 2026-07-28, or a plain 2025 client; closed with the scope. */
export const stdioClient = (command: string, args: ReadonlyArray<string>, era: "modern" | "legacy", cwd?: string) =>
  connect(
    era === "modern" ? modernClient() : new Client({ name: "legacy-host", version: "1.0.0" }, { capabilities: {} }),
    new StdioClientTransport({ command, args: [...args], stderr: "pipe", ...(cwd === undefined ? {} : { cwd }) })
  )
