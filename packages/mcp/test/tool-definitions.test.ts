/**
 * What the hub makes of a 2026-07-28 server's tool definitions (SEP-2243, SEP-2106): parameters
 * declared with `x-mcp-header` are mirrored as `Mcp-Param-*` headers on tools/call, a tool with an
 * invalid declaration is left out of the listing, and an input schema reaches the hub's users with
 * its whole JSON Schema 2020-12 vocabulary, its `$ref` to a network URI never fetched.
 */
import { assert, describe, it } from "@effect/vitest"
import { Interlock, type JsonObject, ToolCalls } from "@interlock/core"
import { fromJsonSchema, type JsonSchemaType, McpServer } from "@modelcontextprotocol/server"
import { Effect, Layer } from "effect"
import type { IncomingHttpHeaders } from "node:http"
import { McpTransport } from "../src/index.ts"
import { textResult } from "./fixtures/schema.ts"
import { serveHttp } from "./fixtures/serve-http.ts"
import { allowAll } from "./helpers.ts"

const REGIONAL = {
  type: "object",
  properties: {
    region: { type: "string", "x-mcp-header": "Region" },
    label: { type: "string", "x-mcp-header": "Label" },
    verbose: { type: "boolean", "x-mcp-header": "Verbose" },
    note: { type: "string" }
  },
  required: ["region"]
}

/** An object-typed parameter cannot be a header: the tool must be excluded. */
const BROKEN = { type: "object", properties: { data: { type: "object", "x-mcp-header": "Data" } } }

/** A schema using the 2020-12 vocabulary a client must keep, with a `$ref` to the server's own canary URL. */
const rich = (canary: string): JsonObject => ({
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    range: { $anchor: "rangeDef", type: "object", properties: { from: { type: "integer" }, to: { type: "integer" } } }
  },
  properties: {
    kind: { type: "string", enum: ["day", "span"] },
    day: { type: "string" },
    span: { $ref: "#/$defs/range" },
    extra: { $ref: canary }
  },
  anyOf: [{ allOf: [{ required: ["day"] }] }, { required: ["span"] }],
  if: { properties: { kind: { const: "span" } }, required: ["kind"] },
  then: { required: ["span"] },
  else: { required: ["day"] },
  additionalProperties: false
})

const acceptAnything = {
  getValidator: () => (input: unknown) => ({ valid: true, data: input, errorMessage: undefined })
} as never
const raw = (schema: object) => fromJsonSchema(schema as JsonSchemaType, acceptAnything)

/** The server over HTTP on 127.0.0.1, recording the headers of every tools/call and every canary fetch. */
const definitionsServer = Effect.gen(function*() {
  const calls: Array<IncomingHttpHeaders> = []
  let hits = 0
  let canary = ""
  const build = () => {
    const server = new McpServer({ name: "definitions", version: "1.0.0" }, { capabilities: { tools: {} } })
    server.registerTool("regional", { inputSchema: raw(REGIONAL) }, async () => textResult("ok"))
    server.registerTool("broken", { inputSchema: raw(BROKEN) }, async () => textResult("ok"))
    server.registerTool("rich", { inputSchema: raw(rich(canary)) }, async () => textResult("ok"))
    return server
  }
  const served = yield* serveHttp(build, (req, res, base) => {
    canary = `${base}/canary/extra.json`
    if (req.url?.startsWith("/canary")) {
      hits += 1
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
      return true
    }
    if (req.headers["mcp-method"] === "tools/call") calls.push(req.headers)
    return false
  })
  return { url: served.url, canaryUrl: `${served.base}/canary/extra.json`, calls, canaryHits: () => hits }
})

describe("tool definitions on a 2026-07-28 connection", () => {
  it.live(
    "x-mcp-header parameters become Mcp-Param headers; an invalid declaration leaves the tool out; schemas " +
      "are kept whole",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const server = yield* definitionsServer
        const hub = McpTransport.http("defs", { url: server.url }, { protocol: { pin: "2026-07-28" } })
        yield* Effect.gen(function*() {
          const calls = yield* ToolCalls
          const tools = yield* calls.listTools("defs")
          assert.deepStrictEqual(tools.map((tool) => tool.name).sort(), ["regional", "rich"])
          const listed = tools.find((tool) => tool.name === "rich")
          assert.deepStrictEqual(listed?.inputSchema, rich(server.canaryUrl))
          yield* calls.callTool({
            serverId: "defs",
            name: "regional",
            args: { region: "eu-west1", label: "Grüße ", verbose: null, note: "not a header" }
          })
          assert.strictEqual(server.calls.length, 1)
          const headers = server.calls[0]
          assert.strictEqual(headers["mcp-param-region"], "eu-west1")
          // Not plain ASCII (and padded): sent in the revision's Base64 form.
          assert.strictEqual(headers["mcp-param-label"], `=?base64?${Buffer.from("Grüße ").toString("base64")}?=`)
          assert.isUndefined(headers["mcp-param-verbose"], "a null value is omitted")
          assert.isUndefined(headers["mcp-param-note"], "an undeclared parameter is not mirrored")
          assert.strictEqual(headers["mcp-name"], "regional")
          assert.strictEqual(server.canaryHits(), 0, "the network $ref was never fetched")
        }).pipe(Effect.provide(Interlock.layer({ policy: allowAll }).pipe(Layer.provideMerge(hub))))
      }))
  )
})
