/** End-to-end helpers: a gateway on real HTTP (port 0) over real stdio servers, and SDK clients. */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Context, Effect, Layer } from "effect"
import * as path from "node:path"
import { fromObject } from "../src/config/ConfigLoader.ts"
import { Gateway } from "../src/runtime/Gateway.ts"
import { makePlan } from "../src/runtime/PlanBuilder.ts"
import { HttpFront, type HttpFrontOptions } from "../src/serve/HttpFront.ts"
import { telemetryLayer } from "../src/telemetry/OtlpExport.ts"

/** Node 24 from the workspace with the compile cache on (scripts/test-node), for spawning TypeScript fixtures. */
export const NODE = path.join(import.meta.dirname, "..", "..", "..", "scripts", "test-node")

/** The echo fixture server as a stdio server config. */
export const echoServer = { command: NODE, args: [path.join(import.meta.dirname, "fixtures", "echo-server.ts")] }

/** server-everything from npm as a stdio server config. */
export const everythingServer = {
  command: NODE,
  args: [
    path.join(
      import.meta.dirname,
      "..",
      "..",
      "..",
      "node_modules",
      "@modelcontextprotocol",
      "server-everything",
      "dist",
      "index.js"
    )
  ]
}

/** Starts a gateway with HTTP on 127.0.0.1:0 in the current scope (`front`: what the HTTP face serves besides /mcp). */
export const startGateway = (
  raw: Record<string, unknown>,
  env: Record<string, string> = {},
  front: HttpFrontOptions = {}
) =>
  Effect.gen(function*() {
    const listen = { http: "127.0.0.1:0", ...((raw.listen as object | undefined) ?? {}) }
    const loaded = yield* fromObject({ audit: { path: ":memory:" }, ...raw, listen }, process.cwd())
    const plan = makePlan(loaded, { env })
    if (!("servers" in plan)) return yield* Effect.fail(plan)
    const context = yield* Layer.build(
      HttpFront.layerWith(front).pipe(
        Layer.provideMerge(Gateway.layer(plan).pipe(Layer.provide(telemetryLayer(plan))))
      )
    )
    return { gateway: Context.get(context, Gateway), http: Context.get(context, HttpFront) }
  })

/** An SDK client connected to the gateway over Streamable HTTP; closed with the scope. */
export const httpClient = (
  url: string,
  options: { readonly token?: string; readonly capabilities?: Record<string, unknown> } = {}
) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "test-host", version: "1.0.0" }, { capabilities: options.capabilities ?? {} })
      const transport = new StreamableHTTPClientTransport(
        new URL(url),
        options.token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${options.token}` } } }
      )
      await client.connect(transport)
      return client
    }),
    (client) => Effect.promise(() => client.close().catch(() => undefined))
  )
