/**
 * How the CLI reports a server process's end, as a user meets it: a server that exits during start
 * (`interlock init` then `check`, its directory missing) is reported at once, in one attempt, with
 * its stderr tail redacted; a server the gateway stops itself (Ctrl-C on `serve`) is no warning.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import * as path from "node:path"
import { BIN, cliIn } from "./cli-process.ts"
import { echoServer, NODE } from "./e2e.ts"

const { cli, dir, writeConfig } = cliIn("interlock-server-end-")
const SECRET = "sk-live0123456789abcdefghijKLMNOP"

/** A server that says why on stderr (with a secret beside it) and exits 1 before answering initialize. */
const failing = path.join(dir, "failing-server.mjs")
writeFileSync(
  failing,
  `process.stderr.write("Error: None of the specified directories are accessible (key ${SECRET})\\n")\n` +
    `setTimeout(() => process.exit(1), 200)\n`
)

/** The echo fixture, after a line on stderr at start (as the filesystem server writes one). */
const chatty = path.join(dir, "chatty-server.mjs")
writeFileSync(
  chatty,
  `process.stderr.write("Echo server running on stdio\\n")\nawait import(${JSON.stringify(echoServer.args[0])})\n`
)

describe("a server process's end, through the CLI", () => {
  it.live(
    "check: a server that exits during start is reported in one attempt, with its stderr tail redacted",
    () =>
      Effect.gen(function*() {
        const file = writeConfig("failing.json", {
          servers: { fs: { command: NODE, args: [failing] } },
          redact: [{ match: "*", pattern: "sk-live[A-Za-z0-9]+", replacement: "[REDACTED]" }]
        })
        const { code, stdout, stderr } = yield* cli(["check", "--config", file])
        assert.strictEqual(code, 1)
        assert.include(stderr, "None of the specified directories are accessible")
        assert.include(stderr, "ended during start")
        assert.include(stderr, "exited with code 1")
        // One attempt: the process ran (and said so) once, not once per retry.
        assert.strictEqual(stderr.split("None of the specified directories").length - 1, 1, stderr)
        assert.notInclude(stdout + stderr, SECRET)
        assert.include(stderr, "[REDACTED]")
      }),
    60_000
  )

  it.live(
    "init then check with the filesystem server from npm on a folder that does not exist: reported at once",
    () =>
      Effect.gen(function*() {
        const { cli: inFresh } = cliIn("interlock-init-check-")
        const server = path.join(
          import.meta.dirname,
          "..",
          "..",
          "..",
          "node_modules",
          "@modelcontextprotocol",
          "server-filesystem",
          "dist",
          "index.js"
        )
        const init = yield* inFresh(["init", "--server", `fs=${NODE} ${server} ./sandbox`])
        assert.strictEqual(init.code, 0, init.stderr)
        const { code, stderr } = yield* inFresh(["check"])
        assert.strictEqual(code, 1)
        assert.include(stderr, "None of the specified directories are accessible")
        assert.include(stderr, "ended during start")
        assert.strictEqual(stderr.split("None of the specified directories").length - 1, 1, stderr)
      }),
    60_000
  )

  it.live("serve: Ctrl-C stops the servers with no warning about their end", () =>
    Effect.gen(function*() {
      const file = writeConfig("chatty.json", {
        servers: { echo: { command: NODE, args: [chatty] } },
        approvals: { stateKey: "a-test-state-key-that-is-long-enough-0123456789" }
      })
      const { code, stderr } = yield* Effect.promise(() =>
        new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
          const child = spawn(NODE, [BIN, "serve", "--config", file, "--http", "127.0.0.1:0"], { cwd: dir })
          let out = ""
          let err = ""
          child.stdout.on("data", (chunk: Buffer) => {
            out += chunk.toString()
            if (out.includes("Press Ctrl-C")) child.kill("SIGINT")
          })
          child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()))
          child.once(
            "exit",
            (
              exitCode
            ) => (out.includes("Press Ctrl-C") ? resolve({ code: exitCode, stderr: err }) : reject(new Error(err)))
          )
        })
      )
      assert.notInclude(stderr, "WARN", stderr)
      assert.notInclude(stderr, "MCP server process ended", stderr)
      assert.isNotNull(code)
    }), 60_000)
})
