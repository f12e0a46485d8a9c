#!/usr/bin/env node
/**
 * The static checks `npm test` runs before the tests: the type check, the formatter, the linter and the import
 * rules, side by side (they are independent, and the type check alone leaves a core idle). Each one's output is
 * printed whole once it ends, in this order; the exit code is 1 when any of them failed.
 */
import { spawn } from "node:child_process"

/** The npm scripts checked, in the order their output is printed. */
const CHECKS = ["typecheck", "format:check", "lint", "imports"] as const

const run = (script: string) =>
  new Promise<{ readonly script: string; readonly code: number; readonly output: string }>((resolve) => {
    const child = spawn("npm", ["run", "--silent", script], { stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    const collect = (chunk: Buffer) => {
      output += chunk.toString()
    }
    child.stdout.on("data", collect)
    child.stderr.on("data", collect)
    child.on("close", (code) => resolve({ script, code: code ?? 1, output }))
  })

const results = await Promise.all(CHECKS.map(run))
for (const { code, output, script } of results) {
  process.stdout.write(`> ${script}: ${code === 0 ? "passed" : `failed (exit ${code})`}\n${output}`)
}
process.exit(results.every((result) => result.code === 0) ? 0 : 1)
