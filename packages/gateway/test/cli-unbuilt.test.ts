/**
 * The published bin (bin/interlock.js) where `npm run build` has not run, as a fresh clone after
 * `npm install` has it: with the sources beside it, it runs from them and says so in one line; a
 * copy with neither dist/ nor the sources says in one line what to run, with no stack trace. Both
 * copies are made in a temp folder (package.json and the bin; src/ linked), so a built dist/ in
 * this checkout changes nothing here.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { NODE } from "./e2e.ts"

const PACKAGE = path.join(import.meta.dirname, "..")

/** A copy of the package with only package.json and the bin (and src/, linked, when `sources`); its bin. */
const unbuiltCopy = (sources: boolean) => {
  const dir = mkdtempSync(path.join(tmpdir(), "interlock-unbuilt-"))
  mkdirSync(path.join(dir, "bin"))
  copyFileSync(path.join(PACKAGE, "package.json"), path.join(dir, "package.json"))
  copyFileSync(path.join(PACKAGE, "bin", "interlock.js"), path.join(dir, "bin", "interlock.js"))
  if (sources) symlinkSync(path.join(PACKAGE, "src"), path.join(dir, "src"))
  return path.join(dir, "bin", "interlock.js")
}

/** Runs the bin with plain Node (no source condition) in a folder holding an empty config. */
const runBin = (bin: string, args: ReadonlyArray<string>) =>
  Effect.promise(() => {
    const cwd = mkdtempSync(path.join(tmpdir(), "interlock-unbuilt-cwd-"))
    writeFileSync(path.join(cwd, "interlock.config.json"), JSON.stringify({ servers: {} }))
    const env = { ...process.env }
    delete env.NODE_OPTIONS
    return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(NODE, [bin, ...args], { cwd, env, timeout: 30_000 }, (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }))
    )
  })

describe("the bin without a build", () => {
  it.live(
    "with the sources beside it, it runs from them and says so in one line on stderr",
    () =>
      Effect.gen(function*() {
        const { code, stdout, stderr } = yield* runBin(unbuiltCopy(true), ["check", "--no-connect"])
        assert.strictEqual(code, 0, stderr)
        assert.include(stdout, "Config OK")
        assert.strictEqual(stderr.trim().split("\n").length, 1, stderr)
        assert.include(stderr, "npm run build")
        assert.notInclude(stderr, "ERR_MODULE_NOT_FOUND")
      }),
    60_000
  )

  it.live(
    "with neither dist/ nor the sources, one line names `npm run build`: no stack trace, exit 1 (2 for claude-hook)",
    () =>
      Effect.gen(function*() {
        const bin = unbuiltCopy(false)
        for (const [args, exit] of [[["check"], 1], [["claude-hook"], 2]] as const) {
          const { code, stdout, stderr } = yield* runBin(bin, args)
          assert.strictEqual(code, exit, stderr)
          assert.strictEqual(stdout, "")
          assert.strictEqual(stderr.trim().split("\n").length, 1, stderr)
          assert.include(stderr, "`npm run build`")
          assert.notMatch(stderr, /ERR_MODULE_NOT_FOUND|\n\s+at /)
        }
      }),
    60_000
  )
})
