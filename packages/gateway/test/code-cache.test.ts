/**
 * CodeCache.ts, the code caches of the claude-hook bundle: a cache file is read only when it is private, whole and
 * made for this Node and this source (any changed byte, another source, a public or foreign file, a symlink is
 * refused), and a CommonJS entry run through requireCached gives the same exports with or without its caches, which
 * the first runs write when the process exits; they live in the user's cache directory. The published bin on them:
 * claude-hook-bundle.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { codeCacheDir } from "../src/cli/ClaudeHookBundle.ts"
import { DIR_MODE, FILE_MODE, MAX_CACHE_FILES, readCache, RUNS_THAT_WRITE, writeCache } from "../src/cli/CodeCache.ts"
import { userCacheDir } from "../src/cli/UserCacheDir.ts"
import { NODE } from "./e2e.ts"

const work = mkdtempSync(path.join(tmpdir(), "interlock-code-cache-"))
const SOURCE = Buffer.from("module.exports = { answer: 42 }\n")
const DATA = Buffer.from("not really V8's data, but bytes all the same")

/** A cache written for SOURCE in a directory of its own; its path. */
const written = (name: string, runs = 1) => {
  const file = path.join(work, name, "chunk.cjs.cache")
  writeCache(file, SOURCE, DATA, runs)
  return file
}

const modeOf = (file: string) => statSync(file).mode & 0o777

/** Where a cache file's runs byte is: after its first line. */
const MAGIC_BYTES = "interlock-code-cache-1\n".length

describe("a code cache file", () => {
  it("is written private, in a private directory, and read back as written", () => {
    const file = written("round-trip", 3)
    assert.strictEqual(modeOf(file), FILE_MODE)
    assert.strictEqual(modeOf(path.dirname(file)), DIR_MODE)
    const read = readCache(file, SOURCE)
    assert.deepStrictEqual(read && { data: Buffer.from(read.data), runs: read.runs }, { data: DATA, runs: 3 })
    assert.deepStrictEqual(readdirSync(path.dirname(file)), ["chunk.cjs.cache"], "no temporary file is left")
  })

  it("with any byte changed, cut short, or grown, is refused", () => {
    const file = written("changed")
    const bytes = readFileSync(file)
    for (let at = 0; at < bytes.length; at += 7) {
      const changed = Buffer.from(bytes)
      changed[at] ^= 0x01
      writeFileSync(file, changed)
      assert.isUndefined(readCache(file, SOURCE), `byte ${at} changed`)
    }
    for (const length of [0, 10, bytes.length - 1]) {
      writeFileSync(file, bytes.subarray(0, length))
      assert.isUndefined(readCache(file, SOURCE), `cut to ${length} bytes`)
    }
    writeFileSync(file, Buffer.concat([bytes, Buffer.of(0)]))
    assert.isUndefined(readCache(file, SOURCE), "a byte added")
    writeFileSync(file, bytes)
    assert.isDefined(readCache(file, SOURCE), "the file as written")
  })

  it("made for another source is refused (a stale cache: the bundle was rebuilt)", () => {
    const file = written("stale")
    assert.isUndefined(readCache(file, Buffer.from("module.exports = { answer: 43 }\n")))
  })

  it("that others may read or write, behind a symlink, or that is a directory or missing, is refused", () => {
    const file = written("public")
    chmodSync(file, 0o644)
    assert.isUndefined(readCache(file, SOURCE), "readable by others")
    chmodSync(file, 0o620)
    assert.isUndefined(readCache(file, SOURCE), "writable by the group")
    chmodSync(file, FILE_MODE)
    assert.isDefined(readCache(file, SOURCE))
    const link = path.join(work, "public", "link.cache")
    symlinkSync(file, link)
    assert.isUndefined(readCache(link, SOURCE), "a symlink to a good cache")
    assert.isUndefined(readCache(path.join(work, "public"), SOURCE), "a directory")
    assert.isUndefined(readCache(path.join(work, "public", "none.cache"), SOURCE), "no file")
  })

  it.runIf(process.getuid?.() === 0)("owned by another user is refused", () => {
    const file = written("foreign")
    chownSync(file, 65534, 65534)
    assert.isUndefined(readCache(file, SOURCE))
  })

  it("a write beyond MAX_CACHE_FILES removes the oldest files", () => {
    const dir = path.join(work, "trim")
    mkdirSync(dir)
    for (let i = 0; i < MAX_CACHE_FILES + 5; i++) {
      const old = path.join(dir, `old-${i}.cache`)
      writeFileSync(old, "")
      utimesSync(old, 1_000 + i, 1_000 + i)
    }
    writeCache(path.join(dir, "new.cache"), SOURCE, DATA, 1)
    const left = readdirSync(dir)
    assert.strictEqual(left.length, MAX_CACHE_FILES)
    assert.include(left, "new.cache")
    assert.notInclude(left, "old-0.cache")
    assert.include(left, `old-${MAX_CACHE_FILES + 4}.cache`)
  })
})

describe("requireCached", () => {
  /**
   * A CommonJS entry and its chunk (doubling as `twice` says) in `work/name`; runs them with the caches in a directory
   * ("-": none).
   */
  const appAt = (name: string, twice: string) => {
    const app = path.join(work, name)
    mkdirSync(app)
    writeFileSync(
      path.join(app, "entry.cjs"),
      `"use strict";\nconst chunk = require("./chunk.cjs");\nexports.line = () => new ` +
        `Error("here").stack.split("\\n")[1];\n` +
        `exports.value = chunk.twice(21) + require("node:path").sep.length * 0;\n`
    )
    writeFileSync(path.join(app, "chunk.cjs"), `exports.twice = (n) => ${twice};\n`)
    const run = path.join(app, "run.mjs")
    writeFileSync(
      run,
      `import { requireCached } from ${
        JSON.stringify(path.join(import.meta.dirname, "..", "src", "cli", "CodeCache.ts"))
      }\n` +
        `const entry = requireCached(${
          JSON.stringify(path.join(app, "entry.cjs"))
        }, process.argv[2] === "-" ? undefined : process.argv[2])\n` +
        `console.log(JSON.stringify({ value: entry.value, line: entry.line() }))\n`
    )
    return (dir: string) =>
      JSON.parse(execFileSync(NODE, [run, dir], { encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } }))
  }
  const runWith = appAt("app", "n * 2")

  // The header's runs byte, after the magic line (readCache here would refuse them: this process is another Node, by
  // its flags).
  const runsIn = (dir: string) => readdirSync(dir).map((name) => readFileSync(path.join(dir, name))[MAGIC_BYTES])

  it(
    "runs the entry and its chunks alike with no cache, a new one and the ones written; the first runs " +
      "write them",
    () => {
      const none = runWith("-")
      assert.strictEqual(none.value, 42)
      assert.match(none.line, /entry\.cjs:3:/, "the entry's lines keep their numbers")
      const dir = path.join(work, "caches")
      for (let run = 1; run <= RUNS_THAT_WRITE + 1; run++) {
        assert.deepStrictEqual(runWith(dir), none, `run ${run}`)
        const runs = Math.min(run, RUNS_THAT_WRITE)
        assert.deepStrictEqual(readdirSync(dir).map((name) => name.split(".cjs.")[0]), ["chunk", "entry"])
        assert.deepStrictEqual(runsIn(dir), [runs, runs], `after run ${run}`)
      }
      for (const name of readdirSync(dir)) assert.strictEqual(modeOf(path.join(dir, name)), FILE_MODE)
    }
  )

  it("keeps the caches of two installs apart, so that running both in turn replaces neither's", () => {
    const other = appAt("other", "n + n")
    const dir = path.join(work, "shared-caches")
    for (let run = 1; run <= RUNS_THAT_WRITE; run++) {
      assert.strictEqual(runWith(dir).value, 42)
      assert.strictEqual(other(dir).value, 42)
    }
    assert.deepStrictEqual(runsIn(dir), [RUNS_THAT_WRITE, RUNS_THAT_WRITE, RUNS_THAT_WRITE, RUNS_THAT_WRITE])
  })

  it("with no cache directory writes none", () => {
    runWith("-")
    assert.notInclude(readdirSync(work), "-")
  })
})

describe("where the caches go", () => {
  const home = process.getBuiltinModule("node:os").homedir()

  it(
    "the user's cache directory: an absolute XDG_CACHE_HOME, else ~/.cache; ~/Library/Caches on macOS; " +
      "LOCALAPPDATA on Windows",
    () => {
      assert.strictEqual(userCacheDir({ XDG_CACHE_HOME: "/x/cache" }, "linux"), "/x/cache")
      assert.strictEqual(userCacheDir({ XDG_CACHE_HOME: "relative/cache" }, "linux"), path.join(home, ".cache"))
      assert.strictEqual(userCacheDir({}, "linux"), path.join(home, ".cache"))
      assert.strictEqual(userCacheDir({ XDG_CACHE_HOME: "/x/cache" }, "darwin"), path.join(home, "Library", "Caches"))
      assert.strictEqual(
        userCacheDir({ LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local" }, "win32"),
        "C:\\Users\\u\\AppData\\Local"
      )
      assert.strictEqual(userCacheDir({}, "win32"), path.win32.join(home, "AppData", "Local"))
    }
  )

  it("interlock/code-cache in it, or none with NODE_DISABLE_COMPILE_CACHE", () => {
    const expected = process.platform === "linux" ? path.join("/x/cache", "interlock", "code-cache") : undefined
    if (expected !== undefined) assert.strictEqual(codeCacheDir({ XDG_CACHE_HOME: "/x/cache" }), expected)
    assert.isUndefined(codeCacheDir({ XDG_CACHE_HOME: "/x/cache", NODE_DISABLE_COMPILE_CACHE: "1" }))
  })
})
