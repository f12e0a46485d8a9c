/**
 * The gateway as an interceptor server (`serve --interceptors`): a plain SDK 2.4 client calling
 * `interceptors/list` and `interceptor/invoke` on `/interceptors` and over stdio, and a second gateway
 * that uses the first as its interceptor host, which closes the loop.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { cliIn } from "./cli-process.ts"
import { httpClient, NODE, startGateway } from "./e2e.ts"
import { interceptorEras, invoke, rpc, stdioInterceptorClient } from "./interceptor-wire.ts"

const TOKEN = "interceptor-serving-token-0123456789"
const RECORDING_SERVER = path.join(import.meta.dirname, "fixtures", "recording-server.ts")

/** The policy and redactions the serving gateway holds. */
const SERVING_CONFIG = {
  servers: {},
  listen: { token: TOKEN },
  policy: {
    default: "allow",
    rules: [
      {
        id: "no-bad",
        match: "note",
        decision: "deny",
        reason: "bad nonces are refused",
        when: { args: { nonce: { startsWith: "bad" } } }
      },
      { id: "ask-deploy", match: "deploy", decision: "ask", reason: "deploys need a person" }
    ]
  },
  redact: [{ pattern: "SECRET-[0-9]+", replacement: "[hidden]" }]
}

describe("the gateway as an interceptor server", () => {
  const ERAS = interceptorEras(TOKEN)
  for (const [era, connect] of ERAS) {
    it.live(
      `a plain SDK client (${era}) lists and invokes interlock.policy and interlock.redact on ` +
        `/interceptors`,
      () =>
        Effect.gen(function*() {
          const { http } = yield* startGateway(SERVING_CONFIG, {}, { interceptors: true })
          const url = http.mcpUrl.replace(/\/mcp$/, "/interceptors")
          const client = yield* connect(url)
          const listed = yield* rpc(client, "interceptors/list", {})
          assert.deepStrictEqual(
            listed.ok ? listed.result.interceptors.map((i: any) => [i.name, i.type, i.hook.phase]) : [],
            [["interlock.policy", "validation", "request"], ["interlock.redact", "mutation", "response"]]
          )
          const allowed = yield* invoke(client, "interlock.policy", "tools/call", "request", {
            name: "note",
            arguments: { nonce: "ok" }
          })
          assert.deepStrictEqual(allowed.ok ? allowed.result.valid : undefined, true)
          const denied = yield* invoke(client, "interlock.policy", "tools/call", "request", {
            name: "note",
            arguments: { nonce: "bad-1" }
          })
          assert.deepStrictEqual(
            denied.ok ? [denied.result.valid, denied.result.severity, denied.result.messages[0].message] : [],
            [
              false,
              "error",
              "denied by policy rule no-bad: bad nonces are refused"
            ]
          )
          const asked = yield* invoke(client, "interlock.policy", "tools/call", "request", {
            name: "deploy",
            arguments: {}
          })
          assert.include(asked.ok ? asked.result.messages[0].message : "", "approval is needed")
          const redacted = yield* invoke(client, "interlock.redact", "tools/call", "response", {
            content: [{ type: "text", text: "the key is SECRET-42" }]
          })
          assert.deepStrictEqual(redacted.ok ? [redacted.result.modified, redacted.result.payload.content] : [], [
            true,
            [{ type: "text", text: "the key is [hidden]" }]
          ])
          // What it cannot run is a JSON-RPC error (-32602), not a verdict.
          assert.deepStrictEqual(yield* invoke(client, "interlock.nope", "tools/call", "request", {}), {
            ok: false,
            code: -32602
          })
          assert.deepStrictEqual(yield* invoke(client, "interlock.policy", "tools/list", "response", {}), {
            ok: false,
            code: -32602
          })
          assert.deepStrictEqual(yield* invoke(client, "interlock.policy", "tools/call", "request", "junk"), {
            ok: false,
            code: -32602
          })
        })
    )
  }

  it.live("/interceptors has the guard of /mcp: no token, no interceptors; and it is served only when asked", () =>
    Effect.gen(function*() {
      const { http } = yield* startGateway(SERVING_CONFIG, {}, { interceptors: true })
      const url = http.mcpUrl.replace(/\/mcp$/, "/interceptors")
      const status = (target: string, token?: string) =>
        Effect.promise(() =>
          fetch(target, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
              ...(token === undefined ? {} : { authorization: `Bearer ${token}` })
            },
            body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "interceptors/list", params: {} })
          }).then((response) => response.status)
        )
      assert.strictEqual(yield* status(url), 401)
      const plain = yield* startGateway(SERVING_CONFIG)
      assert.strictEqual(yield* status(plain.http.mcpUrl.replace(/\/mcp$/, "/interceptors"), TOKEN), 404)
    }))

  it.live("a second gateway uses the first as its interceptor host", () =>
    Effect.gen(function*() {
      const serving = yield* startGateway(SERVING_CONFIG, {}, { interceptors: true })
      const downstream = path.join(mkdtempSync(path.join(tmpdir(), "loop-")), "calls.jsonl")
      const host = yield* startGateway({
        servers: { rec: { command: NODE, args: [RECORDING_SERVER], env: { RECORD_FILE: downstream } } },
        namespace: "never",
        policy: { default: "allow" },
        interceptors: [{
          server: {
            url: serving.http.mcpUrl.replace(/\/mcp$/, "/interceptors"),
            headers: { authorization: `Bearer ${TOKEN}` }
          }
        }]
      })
      const client = yield* httpClient(host.http.mcpUrl)
      const call = (nonce: string) =>
        Effect.promise(async () => {
          const result = await client.callTool({ name: "note", arguments: { nonce } }) as {
            isError?: boolean
            content: Array<{ text?: string }>
          }
          return [result.isError === true, result.content.map((c) => c.text ?? "").join("")]
        })
      const denied = yield* call("bad-2")
      assert.isTrue(denied[0])
      assert.include(String(denied[1]), `interceptor "interlock.policy" found the request invalid (at params)`)
      assert.deepStrictEqual(yield* call("SECRET-7"), [false, "noted [hidden]"])
      const recorded = readFileSync(downstream, "utf8").trim().split("\n").map((line) => JSON.parse(line).nonce)
      assert.deepStrictEqual(recorded, ["SECRET-7"])
    }))

  it.live("serve --stdio --interceptors serves them to a host over stdio", () =>
    Effect.gen(function*() {
      const { writeConfig, dir } = cliIn("interlock-serving-")
      const file = writeConfig("serving.json", { ...SERVING_CONFIG, audit: { enabled: false } })
      const { client } = yield* stdioInterceptorClient(dir, file)
      const denied = yield* invoke(client, "interlock.policy", "tools/call", "request", {
        name: "note",
        arguments: { nonce: "bad-3" }
      })
      assert.deepStrictEqual(denied.ok ? denied.result.valid : undefined, false)
    }), 60_000)
})
