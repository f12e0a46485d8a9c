/**
 * `npm run bench -- <suite...> [--runs=N] [--option=value...]`: runs the named suites (all when none is
 * named). Each suite is a module bench/<suite>.ts whose default export runs it and reports through
 * harness.ts; a suite that takes options reads them from process.argv. With `--runs=N`, each suite runs
 * N times, each in a fresh process, and its result holds the medians and each ratio's spread.
 */
import { spawnSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { loadavg } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { combineRuns, report, type SuiteResult } from "./harness.ts"

const here = dirname(fileURLToPath(import.meta.url))
const available = readdirSync(here)
  .filter((file) => file.endsWith(".ts") && !["harness.ts", "run.ts"].includes(file))
  .map((file) => file.slice(0, -3))
  .sort()
const requested = process.argv.slice(2).filter((arg) => !arg.startsWith("--"))
const unknown = requested.filter((name) => !available.includes(name))
if (unknown.length > 0) {
  console.error(`unknown suite: ${unknown.join(", ")}; the suites are ${available.join(", ")}`)
  process.exit(1)
}
const runsArg = process.argv.find((arg) => arg.startsWith("--runs="))
const runs = runsArg === undefined ? 1 : Number(runsArg.slice("--runs=".length))
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`--runs must be a whole number of at least 1, not ${runsArg}`)
  process.exit(1)
}

/** Runs `suite` in a fresh process `runs` times and reports the combined result. */
const runSeveral = (suite: string): void => {
  const options = process.argv.slice(2).filter((arg) => arg.startsWith("--") && arg !== runsArg)
  const results: Array<SuiteResult> = []
  const loads: Array<number> = []
  for (let run = 1; run <= runs; run++) {
    console.log(`\n${suite}: run ${run} of ${runs}`)
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), suite, ...options],
      {
        stdio: "inherit"
      }
    )
    if (child.status !== 0) throw new Error(`${suite} run ${run} ended with ${child.status ?? child.signal}`)
    loads.push(loadavg()[0])
    results.push(JSON.parse(readFileSync(join(here, "results", `${suite}.json`), "utf8")) as SuiteResult)
  }
  report(combineRuns(results, loads))
}

for (const suite of requested.length > 0 ? requested : available) {
  if (runs > 1) {
    runSeveral(suite)
    continue
  }
  const module = (await import(`./${suite}.ts`)) as { default: () => Promise<void> }
  await module.default()
}
