import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { type Dirent, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { noProcessLeft } from "./helpers.ts"

const ROOT = new URL("../../../", import.meta.url).pathname
const CLI = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js")
const out = mkdtempSync(join(tmpdir(), "interlock-conformance-"))
afterAll(() => rmSync(out, { recursive: true, force: true }))

interface Check {
  readonly id: string
  readonly status: string
}

/** Where a scenario's results go: one folder per scenario and wire version. */
const folderOf = (scenario: string, version: string | undefined) =>
  join(out, `${version ?? "default"}-${scenario.replace(/\W/g, "_")}`)

/**
 * Runs one scenario of the official conformance CLI against `npm run --silent conformance-client`,
 * at a wire version when given (the CLI's default otherwise).
 */
const runScenario = (scenario: string, version: string | undefined) =>
  Effect.callback<{ code: number | null; output: string }>((resume) => {
    const child = spawn(process.execPath, [
      CLI,
      "client",
      "--command",
      "npm run --silent conformance-client --",
      "--scenario",
      scenario,
      ...(version === undefined ? [] : ["--spec-version", version]),
      "-o",
      folderOf(scenario, version)
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
const checksOf = (scenario: string, version: string | undefined): Array<Check> =>
  (readdirSync(folderOf(scenario, version), { recursive: true, withFileTypes: true }) as Array<Dirent>)
    .filter((entry) => entry.isFile() && entry.name === "checks.json")
    .flatMap((entry) => JSON.parse(readFileSync(join(entry.parentPath, entry.name), "utf8")) as Array<Check>)

/**
 * The non-auth client scenarios each revision requires (`conformance list --requirements`), at its
 * own wire version; json-schema-2020-12-preservation (listed by both, scored by neither upstream)
 * at both; and two auth scenarios (authorization code with step-up, and client credentials), at
 * the CLI's default (an extension scenario is not on a revision's timeline, so a version skips it).
 */
const SCENARIOS: ReadonlyArray<readonly [scenario: string, version: string | undefined]> = [
  ...[
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "json-schema-2020-12-preservation"
  ].map((s) => [s, "2025-11-25"] as const),
  ...[
    "tools_call",
    "request-metadata",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
    "json-schema-2020-12-preservation"
  ].map((s) => [s, "2026-07-28"] as const),
  ["auth/scope-step-up", undefined],
  ["auth/client-credentials-basic", undefined]
]

describe("official MCP conformance suite (client scenarios), offline", () => {
  for (const [scenario, version] of SCENARIOS) {
    it.live(`${scenario} at ${version ?? "the default version"}`, () =>
      Effect.gen(function*() {
        const { code, output } = yield* runScenario(scenario, version)
        assert.strictEqual(code, 0, output.slice(-2000))
        assert.include(output, "OVERALL: PASSED")
        const checks = checksOf(scenario, version)
        assert.isAbove(checks.filter((check) => check.status === "SUCCESS").length, 0)
        assert.deepStrictEqual(checks.filter((check) => check.status === "FAILURE"), [])
        // A reconnection a little later than the server's retry hint is a WARNING on a loaded machine; nothing else may
        // warn.
        assert.deepStrictEqual(
          checks.filter((check) => check.status === "WARNING" && check.id !== "client-sse-retry-timing"),
          []
        )
      }), 60_000)
  }

  it.live("leaves no process behind", noProcessLeft)
})
