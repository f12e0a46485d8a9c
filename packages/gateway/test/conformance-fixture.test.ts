/**
 * The conformance fixture (fixtures/conformance-server.ts) by itself: what `--omit-result-type`
 * does to the wire, and that its stdio mode serves the 2026-07-28 era (server/discover). Its runs
 * of both requirement sets are the direct runs of the conformance matrix (conformance-requirements.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { runScenario } from "./conformance-suite.ts"
import { NODE } from "./e2e.ts"

const FIXTURE = path.join(import.meta.dirname, "fixtures", "conformance-server.ts")
/** The fixture over Streamable HTTP on 127.0.0.1 (a port of the OS's choosing), killed with the scope. */
const fixtureOverHttp = (args: ReadonlyArray<string> = []) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly kill: () => void }, Error>((resume) => {
      const child = spawn(NODE, [FIXTURE, "--http", "0", ...args], { stdio: ["ignore", "pipe", "inherit"] })
      child.stdout.setEncoding("utf8")
      child.stdout.once("data", (line: string) => {
        const { port } = JSON.parse(line) as { port: number }
        resume(Effect.succeed({ url: `http://localhost:${port}/mcp`, kill: () => void child.kill() }))
      })
      child.once("error", (error) => resume(Effect.fail(error)))
    }),
    (fixture) => Effect.sync(fixture.kill)
  )

/** A raw 2026-07-28 request (the per-request `_meta` envelope and the standard headers), answered as JSON or SSE. */
const modernPost = (url: string, method: string, params: Record<string, unknown>) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
        ...(typeof params.name === "string" ? { "mcp-name": params.name } : {})
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method,
        params: {
          ...params,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { name: "fixture-test", version: "1.0.0" },
            "io.modelcontextprotocol/clientCapabilities": { elicitation: {} }
          }
        }
      })
    })
    const body = await response.text()
    // An SSE answer: the data line of the response to our id.
    const json = (response.headers.get("content-type") ?? "").includes("text/event-stream")
      ? body.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trim()).find((data) =>
        data.includes("\"id\":7")
      ) ?? ""
      : body
    return { status: response.status, raw: json, message: JSON.parse(json) as { result?: Record<string, unknown> } }
  })

describe("the conformance fixture by itself", () => {
  // Both requirement sets against the fixture alone, as it is and with --omit-result-type, run in
  // the conformance matrix (its direct runs, conformance-requirements.ts), which holds them to passing.
  it.live(
    "with --omit-result-type a 2026-07-28 scenario fails its wire-schema check, for the missing resultType",
    () =>
      Effect.gen(function*() {
        const omitting = yield* fixtureOverHttp(["--omit-result-type"])
        const simple = yield* runScenario(omitting.url, "2026-07-28", "tools-call-simple-text")
        assert.strictEqual(simple.failed, 1, simple.output)
        assert.include(simple.output, "must have required property 'resultType'")
      }),
    120_000
  )

  it.live(
    "--omit-result-type drops resultType \"complete\" from 2026-07-28 results and keeps \"input_required\"",
    () =>
      Effect.gen(function*() {
        const plain = yield* fixtureOverHttp()
        const omitting = yield* fixtureOverHttp(["--omit-result-type"])
        const call = { name: "test_simple_text", arguments: {} }
        const complete = yield* modernPost(plain.url, "tools/call", call)
        assert.strictEqual(complete.message.result?.resultType, "complete", complete.raw)
        const stripped = yield* modernPost(omitting.url, "tools/call", call)
        assert.strictEqual(stripped.status, 200)
        assert.notInclude(stripped.raw, "resultType")
        assert.deepStrictEqual(stripped.message.result?.content, [{
          type: "text",
          text: "This is a simple text response for testing."
        }])
        // A streamed answer (progress before the result) loses it too.
        const streamed = yield* modernPost(omitting.url, "tools/call", {
          name: "test_tool_with_progress",
          arguments: {},
          _meta: { progressToken: "p1" }
        })
        assert.isDefined(streamed.message.result?.content, streamed.raw)
        assert.notInclude(streamed.raw, "resultType")
        const listed = yield* modernPost(omitting.url, "tools/list", {})
        assert.isAbove((listed.message.result!.tools as ReadonlyArray<unknown>).length, 10)
        assert.notProperty(listed.message.result, "resultType")
        const asking = yield* modernPost(omitting.url, "tools/call", {
          name: "test_input_required_result_elicitation",
          arguments: {}
        })
        assert.strictEqual(asking.message.result?.resultType, "input_required", asking.raw)
      }),
    60_000
  )

  it.live("over stdio it answers server/discover and serves a 2026-07-28 client", () =>
    Effect.gen(function*() {
      const client = yield* Effect.acquireRelease(
        Effect.promise(async () => {
          const client = new Client({ name: "fixture-test", version: "1.0.0" }, {
            capabilities: {},
            versionNegotiation: { mode: { pin: "2026-07-28" } }
          })
          await client.connect(new StdioClientTransport({ command: NODE, args: [FIXTURE], stderr: "ignore" }))
          return client
        }),
        (client) => Effect.promise(() => client.close())
      )
      assert.strictEqual(client.getNegotiatedProtocolVersion(), "2026-07-28")
      assert.strictEqual(client.getServerVersion()?.name, "interlock-conformance-fixture")
      const result = yield* Effect.promise(() => client.callTool({ name: "test_simple_text", arguments: {} }))
      assert.deepStrictEqual(result.content, [{ type: "text", text: "This is a simple text response for testing." }])
    }), 30_000)
})
