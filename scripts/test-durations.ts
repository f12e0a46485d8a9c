#!/usr/bin/env node
/**
 * Rewrites vitest.durations.json, the order the test sequencer (vitest.sequencer.ts) starts files in on a
 * machine with no earlier run, from a full run's JSON report:
 *
 *   npx vitest run --reporter=json --outputFile=/tmp/report.json && node scripts/test-durations.ts /tmp/report.json
 */
import { readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"

/** Files quicker than this keep Vitest's fallback order (their size). */
const SLOW_SECONDS = 3

interface Report {
  readonly testResults: ReadonlyArray<{ readonly name: string; readonly startTime: number; readonly endTime: number }>
}

const report = process.argv[2]
if (report === undefined) {
  process.stderr.write("usage: node scripts/test-durations.ts REPORT.json (a Vitest JSON report of a full run)\n")
  process.exit(1)
}
const root = path.join(import.meta.dirname, "..")
const { testResults } = JSON.parse(readFileSync(report, "utf8")) as Report
const slow = testResults
  .map((file) => [path.relative(root, file.name), Math.round((file.endTime - file.startTime) / 1000)] as const)
  .filter(([, seconds]) => seconds >= SLOW_SECONDS)
  .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
writeFileSync(path.join(root, "vitest.durations.json"), `${JSON.stringify(Object.fromEntries(slow), null, 2)}\n`)
process.stdout.write(
  `vitest.durations.json: ${slow.length} files of ${testResults.length} take ${SLOW_SECONDS} s or more\n`
)
