import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { runScenario } from "./conformance-suite.ts"
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

describe("conformance fixture and downstream", () => {
  it.live(
    "the fixture's triggers: resources/updated only to a subscriber, list_changed for each list, completion by " +
      "prefix, log levels",
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
