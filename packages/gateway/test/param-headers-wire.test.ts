/**
 * SEP-2243's Mcp-Param-* headers through a real gateway over HTTP: an SDK 2.4 client, pinned to
 * 2026-07-28, mirrors a namespaced tool's declared arguments and its call goes through; raw POSTs
 * whose headers disagree with the body are refused with 400 / -32020 naming the header (never its
 * value), and neither the server (it records every call it gets) nor the audit sees them.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { toolText } from "./cli-process.ts"
import { echoServer, NODE, startGateway } from "./e2e.ts"
import { envelope, modernHttpClient, modernPost } from "./modern-wire.ts"

const recorded = () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "interlock-param-headers-")), "calls.jsonl")
  writeFileSync(file, "")
  return {
    server: {
      command: NODE,
      args: [path.join(import.meta.dirname, "fixtures", "header-server.ts")],
      env: { RECORD_FILE: file }
    },
    calls: () => readFileSync(file, "utf8").split("\n").filter((line) => line.length > 0)
  }
}

const ARGS = { region: "us-west1", shard: 7, target: { zone: "b" }, note: "n" }
const GOOD = { "mcp-param-region": "us-west1", "mcp-param-shard": "7", "mcp-param-zone": "b" }

/**
 * The refusals: the headers a call is sent with, the header its answer names, and the value that answer must not show.
 */
const REFUSED: ReadonlyArray<
  {
    readonly headers: Record<string, string | undefined>
    readonly args?: Record<string, unknown>
    readonly header: string
    readonly hidden?: string
  }
> = [
  { headers: { ...GOOD, "mcp-param-region": undefined }, header: "Mcp-Param-Region" },
  {
    headers: { ...GOOD, "mcp-param-region": "=?base64?dXMtd2VzdDE?=" },
    header: "Mcp-Param-Region",
    hidden: "dXMtd2VzdDE"
  },
  { headers: { ...GOOD, "mcp-param-region": "=?base64?dXMt!!!d2VzdDE=?=" }, header: "Mcp-Param-Region", hidden: "!!!" },
  { headers: { ...GOOD, "mcp-param-region": "eu-central9" }, header: "Mcp-Param-Region", hidden: "eu-central9" },
  { headers: { ...GOOD, "mcp-param-shard": "8" }, header: "Mcp-Param-Shard" },
  { headers: { ...GOOD, "mcp-param-zone": undefined }, header: "Mcp-Param-Zone" },
  // A header for an argument the body does not carry disagrees with the body.
  {
    headers: { ...GOOD, "mcp-param-shard": "7" },
    args: { region: "us-west1", target: { zone: "b" } },
    header: "Mcp-Param-Shard"
  }
]

describe("Mcp-Param-* headers through the gateway", () => {
  it.live(
    "a mirrored call goes through; one whose headers disagree with its body reaches neither the server nor the audit",
    () =>
      Effect.gen(function*() {
        const downstream = recorded()
        const { gateway, http } = yield* startGateway({
          servers: { geo: downstream.server, echo: echoServer },
          policy: { default: "allow" }
        })
        const post = (id: number, headers: Record<string, string | undefined>, args: Record<string, unknown> = ARGS) =>
          modernPost(http.mcpUrl, {
            id,
            method: "tools/call",
            params: { name: "geo__route", arguments: args, _meta: envelope() }
          }, headers)

        // No host has listed the tools yet: the gateway lists the server to learn what it declares.
        let id = 100
        for (const refusal of REFUSED) {
          const answer = yield* post(++id, refusal.headers, refusal.args)
          assert.strictEqual(answer.status, 400, JSON.stringify(refusal))
          assert.strictEqual(answer.json?.error?.code, -32020)
          assert.strictEqual(answer.json?.id, id)
          assert.include(answer.json?.error?.message, refusal.header)
          if (refusal.hidden !== undefined) assert.notInclude(answer.text, refusal.hidden)
        }
        assert.deepStrictEqual(downstream.calls(), [], "no refused call reached the server")
        assert.deepStrictEqual(
          (yield* gateway.store.query()).filter((row) => row.tool === "route"),
          [],
          "nor the audit"
        )

        // The SDK client mirrors what the listing declares (Base64 where the value is not plain ASCII).
        const client = yield* modernHttpClient(http.mcpUrl)
        const listed = yield* Effect.promise(() => client.listTools())
        assert.strictEqual(
          listed.tools.find((tool) => tool.name === "geo__route")?.inputSchema.properties?.region
            ?.["x-mcp-header" as never],
          "Region"
        )
        const result = yield* Effect.promise(() =>
          client.callTool({
            name: "geo__route",
            arguments: { region: "Zürich 世界", shard: 3, target: { zone: " padded " } }
          })
        )
        assert.strictEqual(toolText(result), "Zürich 世界/3/ padded ")
        // A raw call with the right headers, and one whose optional arguments are absent, go through too.
        assert.strictEqual((yield* post(200, GOOD)).status, 200)
        assert.strictEqual(
          (yield* post(201, { "mcp-param-region": " us-west1 " }, { region: "us-west1" })).json?.result?.content?.[0]
            ?.text,
          "us-west1/undefined/undefined"
        )
        assert.lengthOf(downstream.calls(), 3)

        // After a listing as before it: still refused, still unseen.
        const late = yield* post(300, { ...GOOD, "mcp-param-region": "=?base64?dXMtd2VzdDE?=" })
        assert.strictEqual(late.status, 400)
        assert.strictEqual(late.json?.error?.code, -32020)
        assert.lengthOf(downstream.calls(), 3)
        assert.deepStrictEqual(
          (yield* gateway.store.query()).filter((row) => row.tool === "route").map((row) => row.outcome),
          ["ok", "ok", "ok"]
        )
      }),
    60_000
  )
})
