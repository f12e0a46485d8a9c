import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import {
  KNOWN_GAPS,
  passes,
  REVISIONS,
  runServer,
  SERVERS,
  TABLE_MARKERS,
  tableRow,
  worseThrough
} from "./conformance-matrix.ts"
import { requirementSet, runScenario, type SuiteSet } from "./conformance-suite.ts"
import { httpClient, NODE, startGateway } from "./e2e.ts"

const FIXTURE = path.join(import.meta.dirname, "fixtures", "conformance-server.ts")

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
      })
    ),
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
    for (
      const method of [
        "notifications/message",
        "notifications/resources/updated",
        "notifications/tools/list_changed",
        "notifications/resources/list_changed",
        "notifications/prompts/list_changed"
      ] as const
    ) {
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

/** The scenarios a run of `set` must cover: a requirement set's own list, or (2025-06-18, no requirement set) those the direct run ran. */
const scenariosOf = (set: SuiteSet, direct: ReadonlyArray<{ readonly scenario: string }>): Array<string> => {
  if (set === "2025-06-18") return direct.map((outcome) => outcome.scenario)
  const listed = requirementSet(set)
  return [...listed.scored, ...listed.notScored]
}

describe("the conformance suite's server requirement sets, directly and through the gateway", () => {
  for (const server of SERVERS) {
    it.live(
      `${server.label}: every scenario that passes directly passes through the gateway, on every route and in every set`,
      () =>
        Effect.gen(function*() {
          const cells = yield* runServer(server)
          assert.lengthOf(cells, server.routes.length * REVISIONS.length)
          // The gateway README's table shows what was measured here (scripts/conformance-table.ts writes it).
          const readme = readFileSync(path.join(import.meta.dirname, "..", "README.md"), "utf8")
          const table = readme.slice(readme.indexOf(TABLE_MARKERS.start), readme.indexOf(TABLE_MARKERS.end))
          for (const cell of cells) {
            assert.include(
              table.split("\n"),
              tableRow(cell),
              "packages/gateway/README.md's conformance table (run scripts/conformance-table.ts)"
            )
          }
          for (const cell of cells) {
            const where = `${cell.revision}, ${cell.route.label}`
            // Each run covers the whole set: a requirement set's scored scenarios and those it runs unscored.
            assert.sameMembers(
              cell.through.map((outcome) => outcome.scenario),
              scenariosOf(cell.revision, cell.direct),
              `${where}: ${cell.output}`
            )
            const worse = worseThrough(cell.direct, cell.through, cell.revision, cell.route.label)
            assert.deepStrictEqual(worse, [], `${where}: ${worse.join("; ")}\n${cell.output}`)
          }
          for (const revision of REVISIONS) {
            // The direct run covers the whole requirement set too.
            const direct = cells.find((cell) => cell.revision === revision)?.direct ?? []
            assert.isAbove(direct.length, 20, `${revision}: the suite runs its server scenarios`)
            assert.sameMembers(
              direct.map((outcome) => outcome.scenario),
              scenariosOf(revision, direct),
              `${revision}, directly`
            )
            if (server.id === "fixture" || (server.id === "fixture-no-result-type" && revision !== "2026-07-28")) {
              // The fixture alone passes every scenario of both sets, scored and not (tasks-status-notifications runs no check: the suite skips it).
              const failing = direct.filter((outcome) =>
                outcome.failed > 0 || (outcome.passed === 0 && outcome.scenario !== "tasks-status-notifications")
              )
              assert.deepStrictEqual(failing, [], `${server.id} ${revision}, directly`)
            }
            if (server.id === "fixture-no-result-type" && revision === "2026-07-28") {
              // Without resultType a scenario fails at most its wire-schema check (the tasks extension's, several), and most fail it.
              const other = direct.filter((outcome) => outcome.failed > 1 && !outcome.scenario.startsWith("tasks-"))
              assert.deepStrictEqual(other, [], "directly, only the missing resultType fails")
              assert.isAbove(
                direct.filter((outcome) => outcome.failed === 1).length,
                10,
                "complete results lack resultType across the set"
              )
            }
          }
          if (server.id === "fixture") {
            // Each known gap is still there (a fix must remove it from KNOWN_GAPS).
            for (const gap of KNOWN_GAPS.filter((gap) => gap.sometimes !== true)) {
              const shown = cells.some((cell) => {
                if (
                  cell.revision !== gap.revision || (gap.route !== undefined && cell.route.label !== gap.route)
                ) return false
                const before = cell.direct.find((outcome) => outcome.scenario === gap.scenario)
                const after = cell.through.find((outcome) => outcome.scenario === gap.scenario)
                return gap.check === "*"
                  ? passes(before) && !passes(after)
                  : before?.succeeded.includes(gap.check) === true && after?.succeeded.includes(gap.check) === false
              })
              assert.isTrue(shown, `${gap.scenario} ${gap.check}: no longer a gap`)
            }
            // The fixture passes every scored scenario directly, so the gateway passes all of them on every route (but the known gaps).
            for (const cell of cells) {
              const failing = cell.through.filter((outcome) =>
                outcome.scored && !passes(outcome) &&
                // A scenario with known gaps fails through only by them (worseThrough holds the rest of its checks).
                !KNOWN_GAPS.some((gap) =>
                  gap.scenario === outcome.scenario && gap.revision === cell.revision && gap.route === cell.route.label
                )
              )
              assert.deepStrictEqual(
                failing.map((outcome) => outcome.scenario),
                [],
                `${cell.revision}, ${cell.route.label}: ${cell.output}`
              )
            }
          }
        }),
      600_000
    )
  }
})

describe("conformance fixture and downstream", () => {
  it.live(
    "the fixture's triggers: resources/updated only to a subscriber, list_changed for each list, completion by prefix, log levels",
    () =>
      Effect.gen(function*() {
        const { client, seen, received } = yield* fixtureOverStdio
        const update = () =>
          client.callTool({ name: "test_update_watched_resource", arguments: {} }).then((r) =>
            JSON.stringify(r.content)
          )
        const read = () =>
          client.readResource({ uri: "test://watched-resource" }).then((r) => JSON.stringify(r.contents))
        assert.include(yield* Effect.promise(update), "no subscriber")
        assert.include(yield* Effect.promise(read), "revision 1")
        yield* Effect.promise(() => client.subscribeResource({ uri: "test://watched-resource" }))
        assert.include(yield* Effect.promise(update), "subscriber notified")
        yield* Effect.promise(() => received("notifications/resources/updated", 1))
        assert.include(yield* Effect.promise(read), "revision 2")
        yield* Effect.promise(() => client.unsubscribeResource({ uri: "test://watched-resource" }))
        assert.include(yield* Effect.promise(update), "no subscriber")

        yield* Effect.promise(() => client.callTool({ name: "test_change_lists", arguments: {} }))
        for (const list of ["tools", "resources", "prompts"]) {
          yield* Effect.promise(() => received(`notifications/${list}/list_changed`, 1))
        }
        const tools = yield* Effect.promise(() => client.listTools())
        assert.include(tools.tools.map((tool) => tool.name), "test_dynamic_tool_1")
        assert.strictEqual(seen.filter((method) => method === "notifications/resources/updated").length, 1)

        const prompt = yield* Effect.promise(() =>
          client.complete({
            ref: { type: "ref/prompt", name: "test_prompt_with_arguments" },
            argument: { name: "arg1", value: "par" }
          })
        )
        assert.deepStrictEqual(prompt.completion.values, ["paris", "park", "party"])
        const template = yield* Effect.promise(() =>
          client.complete({
            ref: { type: "ref/resource", uri: "test://template/{id}/data" },
            argument: { name: "id", value: "12" }
          })
        )
        assert.deepStrictEqual(template.completion.values, ["12", "123"])

        const logged = () => client.callTool({ name: "test_tool_with_logging", arguments: {} })
        yield* Effect.promise(() => client.setLoggingLevel("warning"))
        yield* Effect.promise(logged)
        yield* Effect.promise(() => client.setLoggingLevel("debug"))
        assert.notInclude(seen, "notifications/message", "info messages are below the warning level")
        yield* Effect.promise(logged)
        yield* Effect.promise(() => received("notifications/message", 3))
      }),
    30_000
  )

  it.live(
    "a Streamable HTTP downstream with a bearer token from env: is reached through the gateway",
    () =>
      Effect.gen(function*() {
        const fixture = yield* fixtureOverHttp(["--token", "remote-secret-1"])
        const remote = { url: `http://127.0.0.1:${fixture.port}/mcp`, token: "env:REMOTE_TOKEN" }
        const { gateway, http } = yield* startGateway({ servers: { remote }, policy: { default: "allow" } }, {
          REMOTE_TOKEN: "remote-secret-1"
        })
        const result = yield* runScenario(
          http.mcpUrl.replace("127.0.0.1", "localhost"),
          "2025-11-25",
          "tools-call-simple-text"
        )
        assert.deepInclude(result, { failed: 0 }, result.output)
        assert.isAbove(result.passed, 0, result.output)
        const [row] = yield* gateway.store.query({ limit: 1 })
        assert.deepInclude(row, { server: "remote", tool: "test_simple_text", outcome: "ok" })
        const wrong = yield* startGateway({
          servers: { remote: { ...remote, token: "env:WRONG" } },
          policy: { default: "allow" }
        }, { WRONG: "nope" })
        const client = yield* httpClient(wrong.http.mcpUrl)
        const refused = yield* Effect.promise(() =>
          client.callTool({ name: "test_simple_text", arguments: {} }).then(
            (r) => r,
            (e: Error) => ({ isError: true, content: [{ type: "text", text: e.message }] })
          )
        )
        assert.isTrue(refused.isError, "a wrong downstream token does not get through")
        assert.notInclude(JSON.stringify(refused), "simple text response")
        assert.notInclude(JSON.stringify(refused), "remote-secret-1")
      }),
    120_000
  )
})
