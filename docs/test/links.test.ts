/**
 * The documents a new user reads stay inside the repository and never send anyone to another
 * package: every relative link in every README and docs/*.md resolves to a file or folder of the
 * repository (and an anchor to a heading of it), and no text runs a command through bare
 * `npx interlock` (warning against it is fine).
 */
import { assert, describe, it } from "@effect/vitest"
import { existsSync, readFileSync, statSync } from "node:fs"
import * as path from "node:path"
import { anchors, isExternal, links } from "./Markdown.ts"
import { markdownFiles, ROOT } from "./Workspace.ts"

const files = markdownFiles()
const text = (file: string) => readFileSync(path.join(ROOT, file), "utf8")

/** Why a link of `file` does not resolve inside the repository, or undefined when it does. */
const broken = (file: string, target: string): string | undefined => {
  const [rawPath = "", anchor] = target.split("#", 2)
  const decoded = decodeURIComponent(rawPath)
  const resolved = decoded === "" ? path.join(ROOT, file) : path.resolve(ROOT, path.dirname(file), decoded)
  const inside = path.relative(ROOT, resolved)
  if (inside.startsWith("..") || path.isAbsolute(inside)) return "points outside the repository"
  if (!existsSync(resolved)) return "names no file of the repository"
  if (anchor === undefined || anchor === "") return undefined
  if (!statSync(resolved).isFile() || !resolved.endsWith(".md")) return "has an anchor on a file that is no Markdown"
  return anchors(readFileSync(resolved, "utf8")).has(anchor)
    ? undefined
    : `names no heading of ${path.relative(ROOT, resolved)}`
}

describe("links in the READMEs and docs/", () => {
  it("reads the root README, every package README and the docs", () => {
    for (const file of ["README.md", "packages/core/README.md", "docs/DESIGN.md", "docs/README-blocks.md"]) {
      assert.include(files, file)
    }
  })

  it("every relative link resolves to a file of the repository, and every anchor to a heading", () => {
    const problems = files.flatMap((file) =>
      links(text(file)).flatMap(({ line, target }) => {
        const why = isExternal(target) ? undefined : broken(file, target)
        return why === undefined ? [] : [`${file}:${line}: ${target} ${why}`]
      })
    )
    assert.deepStrictEqual(problems, [])
  })

  it("the root README links to the design inside the repository", () => {
    assert.include(links(text("README.md")).map((link) => link.target), "docs/DESIGN.md")
  })

  it(
    "no document runs a command through bare `npx interlock`: outside the repository that name is " +
      "another package",
    () => {
      const problems = files.flatMap((file) =>
        text(file).split("\n").flatMap((line, index) =>
          /\bnpx\s+(?:-\S+\s+)*interlock\s+[a-z]/.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : []
        )
      )
      assert.deepStrictEqual(problems, [])
    }
  )
})
