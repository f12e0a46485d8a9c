/**
 * Runs the installed MCP conformance suite (@modelcontextprotocol/conformance) against a server
 * URL on Node 24, and reads its output: a revision's whole server requirement set, or one
 * scenario verbosely for diagnosis. Also reads the requirement sets' own files, so a test can
 * tell when the suite's list changed.
 */
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { NODE } from "./e2e.ts"

const PACKAGE = path.join(import.meta.dirname, "..", "..", "..", "node_modules", "@modelcontextprotocol", "conformance")
/** The suite's CLI entry, run with NODE. */
export const CONFORMANCE = path.join(PACKAGE, "dist", "index.js")

/** A protocol revision with a frozen requirement set in the installed suite. */
export type Revision = "2026-07-28" | "2025-11-25"

/** One scenario of a requirement-set run: its checks passed and failed, and whether the set scores it. */
export interface ScenarioOutcome {
  readonly scenario: string
  readonly passed: number
  readonly failed: number
  readonly scored: boolean
  /** The ids of its checks that succeeded (an id may repeat), from the suite's checks.json. */
  readonly succeeded: ReadonlyArray<string>
}

/** A requirement-set run: each scenario's outcome, and the suite's whole output (for messages). */
export interface RequirementsRun {
  readonly outcomes: ReadonlyArray<ScenarioOutcome>
  readonly output: string
}

/** A single scenario's verbose run: the closing counts (failed -1 when the suite printed none) and the output. */
export interface ScenarioRun {
  readonly scenario: string
  readonly passed: number
  readonly failed: number
  readonly warnings: number
  readonly output: string
}

/**
 * The server scenarios a requirement set scores and those it runs unscored, from the suite's
 * requirements/REVISION.yaml.
 */
export const requirementSet = (
  revision: Revision
): { readonly scored: ReadonlyArray<string>; readonly notScored: ReadonlyArray<string> } => {
  const lines = readFileSync(path.join(PACKAGE, "requirements", `${revision}.yaml`), "utf8").split("\n")
  const section = (name: string) => {
    const start = lines.indexOf(`${name}:`)
    const end = lines.findIndex((line, i) => i > start && /^\S/.test(line) && !line.startsWith("#"))
    return start < 0 ? [] : lines.slice(start + 1, end < 0 ? undefined : end)
  }
  const scored = section("server").flatMap((line) => /^ {2}- (\S+)\s*$/.exec(line)?.[1] ?? [])
  // not_scored entries: `  - scenario: NAME` followed by `    leg: server|client`.
  const entries = section("not_scored")
  const notScored = entries.flatMap((line, i) => {
    const name = /^ {2}- scenario: (\S+)/.exec(line)?.[1]
    return name !== undefined && /^ {4}leg: server\s*$/.test(entries[i + 1] ?? "") ? [name] : []
  })
  return { scored, notScored }
}

const run = (args: ReadonlyArray<string>, timeoutMs: number) =>
  Effect.callback<string>((resume, signal) => {
    execFile(
      NODE,
      [CONFORMANCE, ...args],
      { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, signal },
      (_error, stdout, stderr) => {
        // A failing scenario exits non-zero: the output says what failed, so it is the answer either way.
        resume(Effect.succeed(`${stdout}${stderr}`))
      }
    )
  })

/** Parses a requirement-set run: `✓|✗ NAME: P passed, F failed` per scenario, and the "Not scored" section's names. */
export const parseRequirements = (output: string): ReadonlyArray<ScenarioOutcome> => {
  const notScoredAt = output.search(/^Not scored for /m)
  const notScored = new Set(
    notScoredAt < 0 ? [] : [...output.slice(notScoredAt).matchAll(/^\s+[✓✗] (\S+) \(/gm)].map((match) => match[1])
  )
  return [...output.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed/gm)].map((match) => ({
    scenario: match[1],
    passed: Number(match[2]),
    failed: Number(match[3]),
    scored: !notScored.has(match[1]),
    succeeded: []
  }))
}

/** The succeeded check ids of each scenario in a results folder (`server-<scenario>-<timestamp>/checks.json`). */
const succeededChecks = (dir: string): ReadonlyMap<string, ReadonlyArray<string>> => {
  const out = new Map<string, ReadonlyArray<string>>()
  for (const entry of readdirSync(dir)) {
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(entry)?.[1]
    // A scenario that ended before writing its checks (a server that hung up, say) has none.
    const file = path.join(dir, entry, "checks.json")
    if (scenario === undefined || !existsSync(file)) continue
    const checks = JSON.parse(readFileSync(file, "utf8")) as ReadonlyArray<
      { readonly id: string; readonly status: string }
    >
    out.set(scenario, checks.filter((check) => check.status === "SUCCESS").map((check) => check.id))
  }
  return out
}

/**
 * A set of server scenarios the suite runs: a revision's frozen requirement set, or the active scenarios of an older
 * spec version.
 */
export type SuiteSet = Revision | "2025-06-18"

/** The suite's arguments for a set. */
const setArgs = (
  set: SuiteSet
): ReadonlyArray<string> => (set === "2025-06-18" ? ["--spec-version", set] : ["--requirements", set])

/**
 * Runs a set of server scenarios against `url` (bounded by `timeoutMs`, ten minutes unless told), with each scenario's
 * checks.
 */
export const runRequirements = (url: string, set: SuiteSet, timeoutMs = 600_000): Effect.Effect<RequirementsRun> =>
  Effect.acquireUseRelease(
    Effect.sync(() => mkdtempSync(path.join(tmpdir(), "interlock-conformance-"))),
    (dir) =>
      Effect.map(run(["server", "--url", url, ...setArgs(set), "-o", dir], timeoutMs), (output) => {
        const checks = succeededChecks(dir)
        return {
          outcomes: parseRequirements(output).map((outcome) => ({
            ...outcome,
            succeeded: checks.get(outcome.scenario) ?? []
          })),
          output
        }
      }),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

/**
 * Runs one scenario at `specVersion` with `--verbose`, which prints every check and its error; `force` runs an
 * extension's scenario, which is on no spec timeline.
 */
export const runScenario = (
  url: string,
  specVersion: SuiteSet,
  scenario: string,
  timeoutMs = 120_000,
  force = false
): Effect.Effect<ScenarioRun> =>
  Effect.map(
    run([
      "server",
      "--url",
      url,
      "--spec-version",
      specVersion,
      "--scenario",
      scenario,
      "--verbose",
      ...(force ? ["--force"] : [])
    ], timeoutMs),
    (output) => {
      const counts = /Passed: (\d+)\/\d+, (\d+) failed, (\d+) warnings/.exec(output)
      const [passed, failed, warnings] = counts === null ? [0, -1, -1] : counts.slice(1).map(Number)
      return { scenario, passed, failed, warnings, output }
    }
  )
