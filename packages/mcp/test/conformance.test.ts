import { spawn } from "node:child_process"
import { type Dirent, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { noProcessLeft } from "./helpers.ts"

const ROOT = new URL("../../../", import.meta.url).pathname
const CLI = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js")
const out = mkdtempSync(join(tmpdir(), "interlock-conformance-"))
afterAll(() => rmSync(out, { recursive: true, force: true }))

interface Check {
  readonly id: string
  readonly status: string
}

/** Runs one scenario of the official conformance CLI against `npm run --silent conformance-client`. */
const runScenario = (scenario: string) =>
  Effect.callback<{ code: number | null; output: string }>((resume) => {
    const child = spawn(process.execPath, [
      CLI,
      "client",
      "--command",
      "npm run --silent conformance-client --",
      "--scenario",
      scenario,
      "-o",
      join(out, scenario.replace(/\W/g, "_"))
    ], {
      cwd: ROOT,
      // The npm script runs `node`: the Node 24 of node_modules/.bin must come first on PATH.
      env: { ...process.env, PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}` },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.once("exit", (code) => resume(Effect.succeed({ code, output })))
  })

/** Every checks.json the CLI wrote for a scenario (an auth/x scenario writes under auth/). */
const checksOf = (scenario: string): Array<Check> =>
  (readdirSync(join(out, scenario.replace(/\W/g, "_")), { recursive: true, withFileTypes: true }) as Array<Dirent>)
    .filter((entry) => entry.isFile() && entry.name === "checks.json")
    .flatMap((entry) => JSON.parse(readFileSync(join(entry.parentPath, entry.name), "utf8")) as Array<Check>)

describe("official MCP conformance suite (client scenarios), offline", () => {
  // The four required scenarios, plus two auth scenarios (authorization code with step-up, and client credentials).
  for (const scenario of ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry", "auth/scope-step-up", "auth/client-credentials-basic"]) {
    it.live(scenario, () =>
      Effect.gen(function*() {
        const { code, output } = yield* runScenario(scenario)
        assert.strictEqual(code, 0, output.slice(-2000))
        assert.include(output, "OVERALL: PASSED")
        const checks = checksOf(scenario)
        assert.isAbove(checks.filter((check) => check.status === "SUCCESS").length, 0)
        assert.deepStrictEqual(checks.filter((check) => check.status === "FAILURE"), [])
        // A reconnection a little later than the server's retry hint is a WARNING on a loaded machine; nothing else may warn.
        assert.deepStrictEqual(checks.filter((check) => check.status === "WARNING" && check.id !== "client-sse-retry-timing"), [])
      }), 60_000)
  }

  it.live("leaves no process behind", noProcessLeft)
})
