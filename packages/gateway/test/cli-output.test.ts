/**
 * What each command writes where, as a user redirects it: stdout holds only the command's output
 * (`interlock schema --cedar > policy.cedarschema` writes a schema), every log line goes to stderr,
 * and `check`, which approves nothing, says nothing about approvals.stateKey. Every command is run so, at debug level.
 */
import { checkParseSchema } from "@cedar-policy/cedar-wasm/nodejs"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { pathToFileURL } from "node:url"
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

  it.live(
    "claude-hook, audit, replay, check, redact and init at debug level: stdout holds each one's output, no log line",
    () =>
      Effect.gen(function*() {
        // A server that writes to its stderr, which the gateway logs (at debug) when it stops the process.
        const noisy = {
          command: echoServer.command,
          args: [
            "--input-type=module",
            "-e",
            `process.stderr.write("noisy server\\n"); await import(${
              JSON.stringify(pathToFileURL(echoServer.args[0]!).href)
            })`
          ]
        }
        const file = writeConfig("all.json", {
          servers: { echo: noisy },
          policy: { default: "allow" },
          redact: [{ pattern: "sk-live-[0-9]{4}" }]
        })
        const debug = (args: ReadonlyArray<string>, stdin?: string) => cli(["--log-level", "debug", ...args], stdin)
        const event = {
          session_id: "s1",
          transcript_path: "/t.jsonl",
          cwd: "/",
          permission_mode: "default",
          hook_event_name: "PreToolUse",
          tool_name: "mcp__echo__echo",
          tool_input: { text: "hi" },
          tool_use_id: "toolu_1"
        }
        const runs = [
          ["claude-hook", yield* debug(["claude-hook", "--config", file], JSON.stringify(event))],
          ["audit", yield* debug(["audit", "--config", file])],
          ["audit --json", yield* debug(["audit", "--config", file, "--json"])],
          ["replay", yield* debug(["replay", "--config", file])],
          ["check", yield* debug(["check", "--config", file])],
          ["redact", yield* debug(["redact", "--config", file, "--tool", "echo/echo"], "key sk-live-1234 end\n")],
          ["init", yield* debug(["init", "--config", "init.json", "--server", "echo=node server.js"])]
        ] as const
        const output = Object.fromEntries(runs.map(([name, run]) => [name, run.stdout]))
        for (const [name, { code, stdout, stderr }] of runs) {
          assert.strictEqual(code, 0, `${name}: ${stderr}`)
          assert.notMatch(stdout, LOG_LINE, name)
        }
        // The log lines were written, to stderr: check stopped the noisy server and logged its stderr at debug.
        assert.include(output.check, "Exposed tools")
        assert.match(runs.find(([name]) => name === "check")![1].stderr, /DEBUG .*noisy server/)
        assert.include(output.audit, "echo/echo")
        assert.strictEqual(JSON.parse(output["audit --json"]!.trim().split("\n")[0]!).tool, "echo")
        assert.notInclude(output.redact, "sk-live-1234")
        assert.include(output.redact, "key ")
        assert.include(output.init, "init.json")
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
