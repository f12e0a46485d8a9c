/**
 * The conformance fixture (fixtures/conformance-server.ts) by itself, against the installed
 * conformance suite: every scenario of the 2026-07-28 and 2025-11-25 server requirement sets,
 * over HTTP as it is and with `--omit-result-type`; what that flag does to the wire; and that its
 * stdio mode serves the 2026-07-28 era (server/discover).
 */
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { requirementSet, type Revision, runRequirements, runScenario } from "./conformance-suite.ts"
import { NODE } from "./e2e.ts"

const FIXTURE = path.join(import.meta.dirname, "fixtures", "conformance-server.ts")
const REVISIONS: ReadonlyArray<Revision> = ["2026-07-28", "2025-11-25"]
/**
 * The io.modelcontextprotocol/tasks extension's scenarios (not scored): with `--omit-result-type` a
 * tasks/get or an ack without resultType fails several checks of one scenario, not just its schema check.
 */
const isTasks = (scenario: string) => scenario.startsWith("tasks-")

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
      ? body.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trim()).find((data) => data.includes("\"id\":7")) ?? ""
      : body
    return { status: response.status, raw: json, message: JSON.parse(json) as { result?: Record<string, unknown> } }
  })

/** Runs a requirement set and checks that the run covers exactly the scenarios its file lists. */
const runSet = (url: string, revision: Revision) =>
  Effect.gen(function*() {
    const run = yield* runRequirements(url, revision)
    const set = requirementSet(revision)
    const names = (scored: boolean) => run.outcomes.filter((outcome) => outcome.scored === scored).map((outcome) => outcome.scenario).toSorted()
    assert.isAbove(set.scored.length, 20, `${revision}: the requirement file lists its server scenarios`)
    assert.deepStrictEqual(names(true), [...set.scored].toSorted(), `${revision}: ${run.output}`)
    assert.deepStrictEqual(names(false), [...set.notScored].toSorted(), `${revision}: ${run.output}`)
    assert.match(run.output, /^Total: \d+ passed/m)
    return run
  })

/** Every scenario of the set, scored or not, ran checks and failed none (tasks-status-notifications has none: the suite skips it). */
const passesSet = (url: string, revision: Revision) =>
  Effect.gen(function*() {
    const { outcomes, output } = yield* runSet(url, revision)
    for (const outcome of outcomes) {
      assert.strictEqual(outcome.failed, 0, `${revision} ${outcome.scenario}: ${output}`)
      if (outcome.scenario !== "tasks-status-notifications") assert.isAbove(outcome.passed, 0, `${revision} ${outcome.scenario} ran no check: ${output}`)
    }
    return outcomes
  })

describe("the conformance fixture by itself", () => {
  it.live("passes every scenario of the 2026-07-28 and 2025-11-25 server requirement sets, scored and not (the tasks extension's too)", () =>
    Effect.gen(function*() {
      const fixture = yield* fixtureOverHttp()
      for (const revision of REVISIONS) yield* passesSet(fixture.url, revision)
    }), 300_000)

  it.live("with --omit-result-type: the 2025 set still passes, and the 2026-07-28 set objects only to the missing resultType", () =>
    Effect.gen(function*() {
      const plain = yield* fixtureOverHttp()
      const omitting = yield* fixtureOverHttp(["--omit-result-type"])
      yield* passesSet(omitting.url, "2025-11-25")
      const expected = yield* passesSet(plain.url, "2026-07-28")
      const { outcomes, output } = yield* runSet(omitting.url, "2026-07-28")
      for (const outcome of outcomes.filter((outcome) => !isTasks(outcome.scenario))) {
        const before = expected.find((plainOutcome) => plainOutcome.scenario === outcome.scenario)
        // The same checks ran; at most one failed, the wire-schema check of each scenario.
        assert.strictEqual(outcome.passed + outcome.failed, (before?.passed ?? 0) + (before?.failed ?? 0), `${outcome.scenario}: ${output}`)
        assert.isAtMost(outcome.failed, 1, `${outcome.scenario}: ${output}`)
      }
      assert.isAbove(outcomes.filter((outcome) => outcome.failed === 1).length, 10, "complete results lack resultType across the set")
      const simple = yield* runScenario(omitting.url, "2026-07-28", "tools-call-simple-text")
      assert.strictEqual(simple.failed, 1, simple.output)
      assert.include(simple.output, "must have required property 'resultType'")
    }), 300_000)

  it.live("--omit-result-type drops resultType \"complete\" from 2026-07-28 results and keeps \"input_required\"", () =>
    Effect.gen(function*() {
      const plain = yield* fixtureOverHttp()
      const omitting = yield* fixtureOverHttp(["--omit-result-type"])
      const call = { name: "test_simple_text", arguments: {} }
      const complete = yield* modernPost(plain.url, "tools/call", call)
      assert.strictEqual(complete.message.result?.resultType, "complete", complete.raw)
      const stripped = yield* modernPost(omitting.url, "tools/call", call)
      assert.strictEqual(stripped.status, 200)
      assert.notInclude(stripped.raw, "resultType")
      assert.deepStrictEqual(stripped.message.result?.content, [{ type: "text", text: "This is a simple text response for testing." }])
      // A streamed answer (progress before the result) loses it too.
      const streamed = yield* modernPost(omitting.url, "tools/call", { name: "test_tool_with_progress", arguments: {}, _meta: { progressToken: "p1" } })
      assert.isDefined(streamed.message.result?.content, streamed.raw)
      assert.notInclude(streamed.raw, "resultType")
      const listed = yield* modernPost(omitting.url, "tools/list", {})
      assert.isAbove((listed.message.result?.tools as ReadonlyArray<unknown>).length, 10)
      assert.notProperty(listed.message.result, "resultType")
      const asking = yield* modernPost(omitting.url, "tools/call", { name: "test_input_required_result_elicitation", arguments: {} })
      assert.strictEqual(asking.message.result?.resultType, "input_required", asking.raw)
    }), 60_000)

  it.live("over stdio it answers server/discover and serves a 2026-07-28 client", () =>
    Effect.gen(function*() {
      const client = yield* Effect.acquireRelease(
        Effect.promise(async () => {
          const client = new Client({ name: "fixture-test", version: "1.0.0" }, { capabilities: {}, versionNegotiation: { mode: { pin: "2026-07-28" } } })
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
