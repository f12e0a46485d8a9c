/**
 * The policy decides on the keys a host wrote. On Node 24, JSON.parse reads an escaped key such as
 * "x\n" as "x\\" when a sibling object already has the key "x\\" (nodejs/node#63785), so a host
 * could rename an argument under a rule's eyes. The HTTP front reads its bodies with JsonText; the
 * stdio front reads each frame once, with JsonText, and hands the SDK the parsed message.
 */
import { assert, describe, it } from "@effect/vitest"
import { type JsonObject, JsonText } from "@interlock/core"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import * as path from "node:path"
import { cliIn } from "../cli-process.ts"
import { echoServer, httpClient, startGateway } from "../e2e.ts"
import { envelope } from "../modern-wire.ts"
import { rawStdioGateway } from "./stdio-wire.ts"

/** Arguments whose `b` holds the escaped keys, beside `a`, `c[0]` and `c[2]` that set the trap. */
const TRAPPED: JsonObject = {
  text: "hi",
  a: { k: "v", "x\\": "s" },
  b: { k: "v", "x\n": "flagged" },
  c: [{ "\\": 1 }, { "\"": 2 }, { "\\": 3, "\u0000": 4 }]
}

describe("argument keys over the HTTP front", () => {
  it.live(
    "in both eras a rule sees exactly the keys the host sent, and one that names an escaped key still denies",
    () =>
      Effect.gen(function*() {
        const seen: Array<JsonObject> = []
        const { http } = yield* startGateway({
          servers: { echo: echoServer },
          policy: {
            default: "allow",
            rules: [
              {
                id: "spy",
                match: "*",
                decision: "deny",
                when: (args: JsonObject) => (seen.push(structuredClone(args)), false)
              },
              {
                id: "no-flag",
                match: "echo__echo",
                decision: "deny",
                reason: "flagged",
                when: (args: JsonObject) => typeof args.b === "object" && args.b !== null && "x\n" in args.b
              }
            ]
          }
        })
        const modern = yield* Effect.acquireRelease(
          Effect.promise(async () => {
            const client = new Client({ name: "modern-host", version: "1.0.0" }, {
              versionNegotiation: { mode: { pin: "2026-07-28" } }
            })
            await client.connect(new StreamableHTTPClientTransport(new URL(http.mcpUrl)))
            return client
          }),
          (client) => Effect.promise(() => client.close().catch(() => undefined))
        )
        for (const client of [yield* httpClient(http.mcpUrl), modern]) {
          seen.length = 0
          const denied = yield* Effect.promise(() => client.callTool({ name: "echo__echo", arguments: TRAPPED }))
          assert.isTrue(denied.isError)
          assert.deepStrictEqual(denied.content, [{
            type: "text",
            text: "Interlock: denied by policy rule no-flag: flagged"
          }])
          assert.deepStrictEqual(seen, [TRAPPED])
        }
      }),
    60_000
  )
})

describe("argument keys over the stdio front", () => {
  const { dir } = cliIn("interlock-json-keys-")
  const config = path.join(dir, "keys.config.mjs")
  // The spy prints what the policy saw to stderr (one JSON line); the rule names the escaped key.
  writeFileSync(
    config,
    `export default {
    servers: { echo: ${JSON.stringify(echoServer)} },
    audit: { path: ":memory:" },
    policy: { default: "allow", rules: [
      { id: "spy", match: "*", decision: "deny",
        when: (args) => (process.stderr.write("seen " + JSON.stringify(args) + "\\n"), false) },
      { id: "no-flag", match: "*", decision: "deny", reason: "flagged",
        when: (args) => typeof args.b === "object" && args.b !== null && "x\\n" in args.b }
    ] }
  }\n`
  )
  const seen = (stderr: string) =>
    stderr.split("\n").filter((line) => line.startsWith("seen ")).map((line) => JsonText.parse(line.slice(5)))

  it.live(
    "a 2025 host (initialize first) and a 2026-07-28 host (server/discover first): the rule sees the keys sent, " +
      "and denies",
    () =>
      Effect.gen(function*() {
        const legacy = yield* rawStdioGateway(config, dir)
        const modern = yield* rawStdioGateway(config, dir, [], false)
        modern.send(
          JSON.stringify({ jsonrpc: "2.0", id: "discover", method: "server/discover", params: { _meta: envelope() } })
        )
        assert.isDefined((yield* Effect.promise(() => modern.reply("discover"))).result)
        for (const [host, meta] of [[legacy, {}], [modern, { _meta: envelope() }]] as const) {
          host.send(
            JSON.stringify({
              jsonrpc: "2.0",
              id: "call",
              method: "tools/call",
              params: { name: "echo", arguments: TRAPPED, ...meta }
            })
          )
          const denied = yield* Effect.promise(() => host.reply("call"))
          assert.isTrue(denied.result?.isError, JSON.stringify(denied))
          assert.deepStrictEqual(denied.result?.content, [{
            type: "text",
            text: "Interlock: denied by policy rule no-flag: flagged"
          }])
          assert.deepStrictEqual(seen(host.stderr()), [TRAPPED])
        }
      }),
    60_000
  )
})
