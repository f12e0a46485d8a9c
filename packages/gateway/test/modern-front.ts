/**
 * The gateway's real HTTP front for the approval tests of 2026-07-28 hosts: HttpFront over an
 * already built gateway, on 127.0.0.1 port 0, reached with a principal's bearer token. And a
 * 2026-07-28 SDK client whose retries a test may rewrite on the wire, as a hostile host would.
 */
import type { Principal } from "@interlock/core"
import { Client, type ElicitResult, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Context, Effect, Layer, type Scope } from "effect"
import { Gateway, type GatewayShape } from "../src/runtime/Gateway.ts"
import { HttpFront } from "../src/serve/HttpFront.ts"

/** The bearer tokens of the tests' principals; a gateway the fronts serve names them in `listen.principals`. */
export const PRINCIPAL_TOKENS: Readonly<Record<string, string>> = {
  bob: "bob-token-approval-1",
  mallory: "mallory-token-approval-1"
}

/** `listen.principals` and the env that defines PRINCIPAL_TOKENS, for a gateway's config. */
export const principalsConfig = {
  listen: {
    http: "127.0.0.1:0",
    principals: Object.fromEntries(
      Object.keys(PRINCIPAL_TOKENS).map((id) => [id, { token: `env:TOKEN_${id.toUpperCase()}` }])
    )
  },
  env: Object.fromEntries(Object.entries(PRINCIPAL_TOKENS).map(([id, token]) => [`TOKEN_${id.toUpperCase()}`, token]))
}

/** Where a host reaches the gateway as one principal: the MCP URL and that principal's token. */
export interface Front {
  readonly url: string
  readonly token: string
}

/** Serves `gateway` through its own HTTP front; `principal` is whose token the host sends. Closed with the scope. */
export const modernFront = (gateway: GatewayShape, principal: Principal): Effect.Effect<Front, unknown, Scope.Scope> =>
  Effect.map(Layer.build(HttpFront.layer.pipe(Layer.provide(Layer.succeed(Gateway, gateway)))), (context) => ({
    url: Context.get(context, HttpFront).mcpUrl,
    token: PRINCIPAL_TOKENS[principal.id]!
  }))

/** The params of a tools/call as a host sends them (a retry carries inputResponses and requestState). */
export type CallParams = Record<string, unknown> & {
  readonly inputResponses?: Record<string, unknown>
  readonly requestState?: string
}

/** Options of {@link modernClient}. */
export interface ModernClientOptions {
  /** Answers the gateway's elicitation (the approval form); records what it was shown. */
  readonly answer: (params: { readonly message: string }) => ElicitResult
  /** Rewrites a retried tools/call (one with inputResponses) before it is sent. */
  readonly retry?: (params: CallParams) => CallParams
  /** The client capabilities the host declares; default form elicitation. */
  readonly capabilities?: Record<string, unknown>
  /** The URL each tools/call goes to, by its round (0 for the first request); default the connect URL. */
  readonly route?: (round: number) => string
}

/** A 2026-07-28 SDK client of `front` that answers elicitations with `options.answer`; closed with the scope. */
export const modernClient = (front: Front, options: ModernClientOptions) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "modern-host", version: "1.0.0" }, {
        capabilities: options.capabilities ?? { elicitation: {} },
        versionNegotiation: { mode: { pin: "2026-07-28" } }
      })
      const capabilities = options.capabilities ?? { elicitation: {} }
      if (capabilities.elicitation !== undefined) {
        client.setRequestHandler(
          "elicitation/create",
          (request) => Promise.resolve(options.answer(request.params as { readonly message: string }))
        )
      }
      const fetcher = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
        const body = typeof init?.body === "string"
          ? JSON.parse(init.body) as { method?: string; params?: CallParams }
          : undefined
        if (body?.method !== "tools/call" || body.params === undefined) return fetch(input, init)
        const round = body.params.inputResponses === undefined ? 0 : 1
        const params = round === 1 && options.retry !== undefined ? options.retry(body.params) : body.params
        return fetch(options.route?.(round) ?? input, { ...init, body: JSON.stringify({ ...body, params }) })
      }
      await client.connect(
        new StreamableHTTPClientTransport(new URL(front.url), {
          fetch: fetcher,
          requestInit: { headers: { authorization: `Bearer ${front.token}` } }
        })
      )
      return client
    }),
    (client) => Effect.promise(() => client.close().catch(() => undefined))
  )

/** A tools/call through a client: the result's text and error flag, or the error the client raised. */
export const callText = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.promise(() =>
    client.callTool({ name, arguments: args }).then(
      (result) => ({
        isError: result.isError === true,
        text: (result.content as Array<{ text?: string }>).map((block) => block.text ?? "").join("")
      }),
      (error: unknown) => ({
        isError: true,
        text: `client error: ${error instanceof Error ? error.message : String(error)}`
      })
    )
  )
