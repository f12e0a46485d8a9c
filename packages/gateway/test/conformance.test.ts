import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { execFile, spawn } from "node:child_process"
import * as path from "node:path"
import { httpClient, NODE, startGateway } from "./e2e.ts"

const FIXTURE = path.join(import.meta.dirname, "fixtures", "conformance-server.ts")
const CONFORMANCE = path.join(import.meta.dirname, "..", "..", "..", "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")

/** Every server scenario of @modelcontextprotocol/conformance 0.1.16: the fixture passes them all by itself. */
const FIXTURE_SCENARIOS = [
  "server-initialize", "logging-set-level", "ping", "completion-complete", "tools-list", "tools-call-simple-text",
  "tools-call-image", "tools-call-audio", "tools-call-embedded-resource", "tools-call-mixed-content", "tools-call-with-logging",
  "tools-call-error", "tools-call-with-progress", "tools-call-sampling", "tools-call-elicitation", "json-schema-2020-12",
  "elicitation-sep1034-defaults", "server-sse-polling", "server-sse-multiple-streams", "elicitation-sep1330-enums",
  "resources-list", "resources-read-text", "resources-read-binary", "resources-templates-read", "resources-subscribe",
  "resources-unsubscribe", "prompts-list", "prompts-get-simple", "prompts-get-with-args", "prompts-get-embedded-resource",
  "prompts-get-with-image", "dns-rebinding-protection"
]

/**
 * The scenarios the gateway passes in pass-through mode: all of them. server-sse-polling tests the
 * gateway's own HTTP front (priming event, retry field, Last-Event-ID), so the gateway runs with
 * `listen.resumable` on.
 */
const GATEWAY_SCENARIOS = FIXTURE_SCENARIOS

/** One scenario's outcome: exit code, the counts of its closing "Passed: P/T, F failed, W warnings" line, and the output. */
interface ScenarioResult {
  readonly scenario: string
  readonly code: number
  readonly passed: number
  readonly failed: number
  readonly warnings: number
  readonly output: string
}

/** The suite's own list of server scenarios for one spec version, or its refusal of the version. */
const listScenarios = (specVersion: string) =>
  Effect.promise(() =>
    new Promise<{ readonly scenarios: ReadonlyArray<string>; readonly output: string }>((resolve) => {
      execFile(NODE, [CONFORMANCE, "list", "--server", "--spec-version", specVersion], { timeout: 60_000 }, (_error, stdout, stderr) => {
        const output = `${stdout}${stderr}`
        resolve({ scenarios: [...output.matchAll(/^ {2}- (\S+)/gm)].map((match) => match[1]), output })
      })
    }))

const runScenario = (url: string, scenario: string) =>
  Effect.promise(() =>
    new Promise<ScenarioResult>((resolve) => {
      execFile(NODE, [CONFORMANCE, "server", "--url", url, "--scenario", scenario], { timeout: 60_000 }, (error, stdout, stderr) => {
        const output = `${stdout}${stderr}`
        const counts = /Passed: (\d+)\/\d+, (\d+) failed, (\d+) warnings/.exec(output)
        const [passed, failed, warnings] = counts === null ? [0, -1, -1] : counts.slice(1).map(Number)
        resolve({ scenario, code: error === null ? 0 : 1, passed, failed, warnings, output })
      })
    }))

/**
 * Scenarios in which the server asks the host something (sampling, elicitation) or logs during a
 * call. Through the gateway they run one at a time: while another host's call runs on the same
 * server, the gateway refuses to guess whose request or log message it is (see HostSessions), so
 * they must not overlap other scenarios. (tools-call-with-logging overlapping another scenario's
 * call lost a log message in one CI run, as that rule says it must.)
 */
const ASKS_HOST = new Set(["tools-call-sampling", "tools-call-elicitation", "elicitation-sep1034-defaults", "elicitation-sep1330-enums", "tools-call-with-logging"])

const runAll = (url: string, scenarios: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const together = yield* Effect.forEach(scenarios.filter((s) => !ASKS_HOST.has(s)), (scenario) => runScenario(url, scenario), { concurrency: 2 })
    const alone = yield* Effect.forEach(scenarios.filter((s) => ASKS_HOST.has(s)), (scenario) => runScenario(url, scenario))
    return [...together, ...alone]
  })

const fixtureOverHttp = (args: ReadonlyArray<string> = []) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ url: string; port: number; kill: () => void }>((resolve, reject) => {
        const child = spawn(NODE, [FIXTURE, "--http", "0", ...args], { stdio: ["ignore", "pipe", "inherit"] })
        child.stdout.setEncoding("utf8")
        child.stdout.once("data", (line: string) => {
          const { port } = JSON.parse(line) as { port: number }
          resolve({ url: `http://localhost:${port}/mcp`, port, kill: () => child.kill() })
        })
        child.once("error", reject)
      })),
    (fixture) => Effect.sync(() => fixture.kill())
  )

/** An SDK client on the fixture over stdio, recording the methods of the notifications it receives. */
const fixtureOverStdio = Effect.acquireRelease(
  Effect.promise(async () => {
    const client = new Client({ name: "fixture-test", version: "1.0.0" }, { capabilities: {} })
    const seen: Array<string> = []
    const waiters: Array<() => void> = []
    const record = (method: string) => () => {
      seen.push(method)
      for (const wake of waiters.splice(0)) wake()
    }
    for (const method of ["notifications/message", "notifications/resources/updated", "notifications/tools/list_changed", "notifications/resources/list_changed", "notifications/prompts/list_changed"] as const) {
      client.setNotificationHandler(method, record(method))
    }
    await client.connect(new StdioClientTransport({ command: NODE, args: [FIXTURE], stderr: "ignore" }))
    /** Resolves once `count` notifications of `method` have arrived (the test's timeout bounds it). */
    const received = async (method: string, count: number) => {
      while (seen.filter((m) => m === method).length < count) await new Promise<void>((wake) => waiters.push(wake))
    }
    return { client, seen, received }
  }),
  ({ client }) => Effect.promise(() => client.close())
)

describe("conformance server suite", () => {
  it.live("the fixture's triggers: resources/updated only to a subscriber, list_changed for each list, completion by prefix, log levels", () =>
    Effect.gen(function*() {
      const { client, seen, received } = yield* fixtureOverStdio
      const update = () => client.callTool({ name: "test_update_watched_resource", arguments: {} }).then((r) => JSON.stringify(r.content))
      const read = () => client.readResource({ uri: "test://watched-resource" }).then((r) => JSON.stringify(r.contents))
      assert.include(yield* Effect.promise(update), "no subscriber")
      assert.include(yield* Effect.promise(read), "revision 1")
      yield* Effect.promise(() => client.subscribeResource({ uri: "test://watched-resource" }))
      assert.include(yield* Effect.promise(update), "subscriber notified")
      yield* Effect.promise(() => received("notifications/resources/updated", 1))
      assert.include(yield* Effect.promise(read), "revision 2")
      yield* Effect.promise(() => client.unsubscribeResource({ uri: "test://watched-resource" }))
      assert.include(yield* Effect.promise(update), "no subscriber")

      yield* Effect.promise(() => client.callTool({ name: "test_change_lists", arguments: {} }))
      for (const list of ["tools", "resources", "prompts"]) yield* Effect.promise(() => received(`notifications/${list}/list_changed`, 1))
      const tools = yield* Effect.promise(() => client.listTools())
      assert.include(tools.tools.map((tool) => tool.name), "test_dynamic_tool_1")
      assert.strictEqual(seen.filter((method) => method === "notifications/resources/updated").length, 1)

      const prompt = yield* Effect.promise(() => client.complete({ ref: { type: "ref/prompt", name: "test_prompt_with_arguments" }, argument: { name: "arg1", value: "par" } }))
      assert.deepStrictEqual(prompt.completion.values, ["paris", "park", "party"])
      const template = yield* Effect.promise(() => client.complete({ ref: { type: "ref/resource", uri: "test://template/{id}/data" }, argument: { name: "id", value: "12" } }))
      assert.deepStrictEqual(template.completion.values, ["12", "123"])

      const logged = () => client.callTool({ name: "test_tool_with_logging", arguments: {} })
      yield* Effect.promise(() => client.setLoggingLevel("warning"))
      yield* Effect.promise(logged)
      yield* Effect.promise(() => client.setLoggingLevel("debug"))
      assert.notInclude(seen, "notifications/message", "info messages are below the warning level")
      yield* Effect.promise(logged)
      yield* Effect.promise(() => received("notifications/message", 3))
    }), 30_000)

  it.live("the fixture passes every server scenario by itself, with no warning", () =>
    Effect.gen(function*() {
      const fixture = yield* fixtureOverHttp()
      const results = yield* runAll(fixture.url, FIXTURE_SCENARIOS)
      for (const result of results) {
        assert.strictEqual(result.code, 0, `${result.scenario}: ${result.output}`)
        assert.deepInclude(result, { failed: 0, warnings: 0 }, `${result.scenario}: ${result.output}`)
        assert.isAbove(result.passed, 0, `${result.scenario} ran no check: ${result.output}`)
      }
      assert.strictEqual(results.length, FIXTURE_SCENARIOS.length)
      // server-sse-polling's three checks: priming event, retry field, and resuming with Last-Event-ID.
      assert.include(results.find((result) => result.scenario === "server-sse-polling")?.output, "resumes after client reconnects with Last-Event-ID")
    }), 180_000)

  it.live("the gateway in pass-through mode with resumable streams, fronting the fixture, passes all 32 scenarios with no warning", () =>
    Effect.gen(function*() {
      const servers = { conformance: { command: NODE, args: [FIXTURE] } }
      const { http } = yield* startGateway({ servers, policy: { default: "allow" }, listen: { resumable: true } })
      const results = yield* runAll(http.mcpUrl.replace("127.0.0.1", "localhost"), GATEWAY_SCENARIOS)
      for (const result of results) {
        assert.strictEqual(result.code, 0, `${result.scenario}: ${result.output}`)
        assert.deepInclude(result, { failed: 0, warnings: 0 }, `${result.scenario}: ${result.output}`)
        assert.isAbove(result.passed, 0, `${result.scenario} ran no check: ${result.output}`)
      }
      assert.strictEqual(results.length, 32)
      // Priming event and retry field on the call's stream (the call answers on it: the fixture cannot close a stdio stream).
      const polling = results.find((result) => result.scenario === "server-sse-polling")?.output
      for (const check of ["server-sse-priming-event", "server-sse-retry-field"]) assert.match(polling ?? "", new RegExp(`${check}\\s*\\] \\S*SUCCESS`))
    }), 180_000)

  it.live("every era's server scenarios are among those the gateway passes; the suite has none for 2026-07-28 yet", () =>
    Effect.gen(function*() {
      // Each era of the gateway's 2025 front: the suite's scenarios for it all run through the gateway above.
      for (const [specVersion, count] of [["2025-06-18", 26], ["2025-11-25", 32]] as const) {
        const { scenarios, output } = yield* listScenarios(specVersion)
        assert.lengthOf(scenarios, count, output)
        for (const scenario of scenarios) assert.include(GATEWAY_SCENARIOS, scenario, `${specVersion}: ${scenario}`)
      }
      // conformance 0.1.16 knows no 2026-07-28 scenario: test/modern-front.test.ts covers that era with SDK 2.4's client.
      // When the suite learns the revision this fails, and its scenarios join the runs above.
      const modern = yield* listScenarios("2026-07-28")
      assert.include(modern.output, "Unknown spec version: 2026-07-28")
      assert.lengthOf(modern.scenarios, 0)
    }), 60_000)

  it.live("a Streamable HTTP downstream with a bearer token from env: is reached through the gateway", () =>
    Effect.gen(function*() {
      const fixture = yield* fixtureOverHttp(["--token", "remote-secret-1"])
      const remote = { url: `http://127.0.0.1:${fixture.port}/mcp`, token: "env:REMOTE_TOKEN" }
      const { gateway, http } = yield* startGateway({ servers: { remote }, policy: { default: "allow" } }, { REMOTE_TOKEN: "remote-secret-1" })
      const result = yield* runScenario(http.mcpUrl.replace("127.0.0.1", "localhost"), "tools-call-simple-text")
      assert.strictEqual(result.code, 0, result.output)
      const [row] = yield* gateway.store.query({ limit: 1 })
      assert.deepInclude(row, { server: "remote", tool: "test_simple_text", outcome: "ok" })
      const wrong = yield* startGateway({ servers: { remote: { ...remote, token: "env:WRONG" } }, policy: { default: "allow" } }, { WRONG: "nope" })
      const client = yield* httpClient(wrong.http.mcpUrl)
      const refused = yield* Effect.promise(() => client.callTool({ name: "test_simple_text", arguments: {} }).then((r) => r, (e: Error) => ({ isError: true, content: [{ type: "text", text: e.message }] })))
      assert.isTrue(refused.isError, "a wrong downstream token does not get through")
      assert.notInclude(JSON.stringify(refused), "simple text response")
      assert.notInclude(JSON.stringify(refused), "remote-secret-1")
    }), 120_000)
})
