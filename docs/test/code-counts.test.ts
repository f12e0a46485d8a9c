/**
 * Counts the codebase keeps (issue 22): few escapes from the type checker in any package's src, no
 * two source files of one name, and one helper (core's makeTrusted) for building a Schema instance
 * without its constructor. A count that grows fails here, naming the files.
 */
import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { ROOT } from "./Workspace.ts"

/** Every TypeScript file of every package's src/, relative to the root. */
const sources = (): ReadonlyArray<string> =>
  readdirSync(path.join(ROOT, "packages")).flatMap((name) =>
    readdirSync(path.join(ROOT, "packages", name, "src"), { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts"))
      .map((file) => path.join("packages", name, "src", file))
  )

const files = sources()
// Code only: a comment may well say "as never".
const code = (file: string) =>
  readFileSync(path.join(ROOT, file), "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "")

/** Where a pattern occurs in code, as `file: count`. */
const occurrences = (pattern: RegExp): ReadonlyArray<string> =>
  files.flatMap((file) => {
    const count = code(file).match(pattern)?.length ?? 0
    return count === 0 ? [] : [`${file}: ${count}`]
  })

const total = (found: ReadonlyArray<string>) => found.reduce((sum, line) => sum + Number(line.split(": ")[1]), 0)

describe("code counts", () => {
  it("reads the sources of every package", () => {
    assert.isAbove(files.length, 250)
    assert.include(files, path.join("packages", "core", "src", "internal", "Trusted.ts"))
  })

  it("at most 3 `as unknown as` in src", () => {
    const found = occurrences(/\bas unknown as\b/g)
    assert.isAtMost(total(found), 3, found.join("\n"))
  })

  it("at most 3 `as never` in src", () => {
    const found = occurrences(/\bas never\b/g)
    assert.isAtMost(total(found), 3, found.join("\n"))
  })

  it("no two source files share a name (a package's index.ts aside)", () => {
    const byName = new Map<string, Array<string>>()
    for (const file of files) {
      const name = path.basename(file)
      if (name !== "index.ts") byName.set(name, [...(byName.get(name) ?? []), file])
    }
    assert.deepStrictEqual([...byName.values()].filter((same) => same.length > 1), [])
  })

  it("one helper builds a Schema instance on its prototype: core's makeTrusted", () => {
    const found = occurrences(/Object\.create\(\s*[\w.]+\.prototype\s*\)/g)
    assert.deepStrictEqual(found, [`${path.join("packages", "core", "src", "internal", "Trusted.ts")}: 1`])
  })
})
