/**
 * The io.modelcontextprotocol/tasks scenarios of the conformance suite through the gateway, fronting
 * the conformance fixture (which passes them all by itself, conformance-fixture.test.ts): over stdio
 * and over Streamable HTTP downstream, every scenario with no failed check.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { runScenario } from "./conformance-suite.ts"
import { NODE, startGateway } from "./e2e.ts"

const FIXTURE = path.join(import.meta.dirname, "fixtures", "conformance-server.ts")
/** The suite's tasks-* scenarios (tasks-status-notifications runs no check: the suite skips it). */
export const TASK_SCENARIOS = [
  "tasks-lifecycle", "tasks-capability-negotiation", "tasks-wire-fields", "tasks-request-state-removal", "tasks-mrtr-input",
  "tasks-request-headers", "tasks-dispatch-and-envelope", "tasks-status-notifications", "tasks-required-task-error", "tasks-mrtr-composition"
]

const fixtureOverHttp = Effect.acquireRelease(
  Effect.callback<{ readonly url: string; readonly kill: () => void }, Error>((resume) => {
    const child = spawn(NODE, [FIXTURE, "--http", "0"], { stdio: ["ignore", "pipe", "inherit"] })
    child.stdout.setEncoding("utf8")
    child.stdout.once("data", (line: string) => resume(Effect.succeed({ url: `http://localhost:${(JSON.parse(line) as { port: number }).port}/mcp`, kill: () => void child.kill() })))
    child.once("error", (error) => resume(Effect.fail(error)))
  }),
  (fixture) => Effect.sync(fixture.kill)
)

/** Runs every tasks scenario (the extension's, so `--force` at 2026-07-28) against `url`; none may fail a check. */
const passesTasks = (url: string) =>
  Effect.forEach(TASK_SCENARIOS, (scenario) =>
    Effect.map(runScenario(url, "2026-07-28", scenario, 120_000, true), (run) => {
      assert.strictEqual(run.failed, 0, `${scenario}: ${run.output}`)
      if (scenario !== "tasks-status-notifications") assert.isAbove(run.passed, 0, `${scenario} ran no check: ${run.output}`)
    }))

describe("the tasks extension through the gateway", () => {
  it.live("passes every tasks-* scenario fronting the fixture over stdio", () =>
    Effect.gen(function*() {
      const { http } = yield* startGateway({ servers: { conformance: { command: NODE, args: [FIXTURE] } }, policy: { default: "allow" } })
      yield* passesTasks(http.mcpUrl.replace("127.0.0.1", "localhost"))
    }), 300_000)

  it.live("passes every tasks-* scenario fronting the fixture over Streamable HTTP", () =>
    Effect.gen(function*() {
      const fixture = yield* fixtureOverHttp
      const { http } = yield* startGateway({ servers: { conformance: { url: fixture.url } }, policy: { default: "allow" } })
      yield* passesTasks(http.mcpUrl.replace("127.0.0.1", "localhost"))
    }), 300_000)
})
