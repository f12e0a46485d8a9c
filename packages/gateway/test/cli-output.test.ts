/**
 * What each command writes where, as a user redirects it: stdout holds only the command's output
 * (`interlock schema --cedar > policy.cedarschema` writes a schema), every log line goes to stderr,
 * and `check`, which approves nothing, says nothing about approvals.stateKey.
 */
import { checkParseSchema } from "@cedar-policy/cedar-wasm/nodejs"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { cliIn } from "./cli-process.ts"
import { echoServer } from "./e2e.ts"

const { cli, writeConfig } = cliIn("interlock-cli-output-")

/** A log line as Effect's logger writes it (`[hh:mm:ss.mmm] WARN (#8): ...`), or a notice's words. */
const LOG_LINE = /^\[\d\d:\d\d:\d\d\.\d{3}\] [A-Z]+ |approvals\.stateKey|MCP server process/m

const config = () => writeConfig("echo.json", { servers: { echo: echoServer }, policy: { default: "allow" } })

describe("the CLI's stdout holds only its output", () => {
  it.live(
    "schema --cedar: stdout is a Cedar schema that parses; the notices are on stderr or nowhere",
    () =>
      Effect.gen(function*() {
        const { code, stdout, stderr } = yield* cli(["--log-level", "debug", "schema", "--cedar", "--config", config()])
        assert.strictEqual(code, 0, stderr)
        assert.notMatch(stdout, LOG_LINE)
        assert.include(stdout, "entity Tool")
        const parsed = checkParseSchema(stdout)
        assert.strictEqual(parsed.type, "success", JSON.stringify(parsed))
      }),
    60_000
  )

  it.live("schema: stdout is the config's JSON Schema", () =>
    Effect.gen(function*() {
      const { code, stdout } = yield* cli(["--log-level", "debug", "schema"])
      assert.strictEqual(code, 0)
      assert.notMatch(stdout, LOG_LINE)
      assert.strictEqual(typeof JSON.parse(stdout), "object")
    }), 60_000)

  it.live(
    "check (direct and through effect/cli): no log line on stdout, and no stateKey notice at all",
    () =>
      Effect.gen(function*() {
        const file = config()
        for (const args of [["check", "--config", file], ["--log-level", "info", "check", "--config", file]]) {
          const { code, stdout, stderr } = yield* cli(args)
          assert.strictEqual(code, 0, stderr)
          assert.include(stdout, "Exposed tools")
          assert.notMatch(stdout, LOG_LINE, args.join(" "))
          assert.notInclude(stderr, "stateKey", args.join(" "))
        }
      }),
    60_000
  )

  it.live("an error goes to stderr, stdout stays empty", () =>
    Effect.gen(function*() {
      const file = writeConfig("bad.json", { servers: { echo: echoServer }, policy: { default: "perhaps" } })
      const { code, stdout, stderr } = yield* cli(["schema", "--cedar", "--config", file])
      assert.strictEqual(code, 1)
      assert.strictEqual(stdout, "")
      assert.include(stderr, "policy.default")
    }), 60_000)
})
