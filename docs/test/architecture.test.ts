/**
 * docs/ARCHITECTURE.md is true by construction: every file and folder it names exists, its table of
 * the gateway's layers is the list dependency-cruiser checks (GATEWAY_LAYERS), that list covers the
 * folders of gateway/src, and its call path names the hops of both eras.
 */
import { assert, describe, it } from "@effect/vitest"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { GATEWAY_LAYERS } from "../../dependency-cruiser.config.mjs"
import { ROOT } from "./Workspace.ts"

const text = readFileSync(path.join(ROOT, "docs", "ARCHITECTURE.md"), "utf8")
const packages = new Set(readdirSync(path.join(ROOT, "packages")))

/** The text of one `## ` section. */
const section = (heading: string): string => {
  const start = text.indexOf(`\n## ${heading}\n`)
  assert.isAtLeast(start, 0, `ARCHITECTURE.md has a section "${heading}"`)
  const end = text.indexOf("\n## ", start + 1)
  return text.slice(start, end === -1 ? undefined : end)
}

/** Every code span of a text. */
const spans = (of: string): ReadonlyArray<string> => [...of.matchAll(/`([^`\n]+)`/g)].map((match) => match[1] ?? "")

/** A code span that names a file or folder: a path into a package (`core/src/...`), or a file with its extension. */
const isPath = (span: string): boolean =>
  /^[\w.-]+(?:\/[\w.-]+)*\/?$/.test(span) &&
  ((span.includes("/") && packages.has(span.split("/")[0] ?? "")) || /\.(?:ts|mjs|json|md)$/.test(span))

/** Where a named path is: a package's paths are written without `packages/`, the rest from the root. */
const resolve = (span: string): string =>
  packages.has(span.split("/")[0] ?? "") ? path.join(ROOT, "packages", span) : path.join(ROOT, span)

describe("docs/ARCHITECTURE.md", () => {
  it("every file and folder it names exists", () => {
    const named = spans(text).filter(isPath)
    assert.isAbove(named.length, 50)
    assert.deepStrictEqual(named.filter((span) => !existsSync(resolve(span))), [])
  })

  it("names files by their whole path, so that each one is checked", () => {
    const bare = spans(text).filter((span) => /^[\w.-]+\.(?:ts|mjs)$/.test(span) && !existsSync(path.join(ROOT, span)))
    assert.deepStrictEqual(bare, [])
  })

  it("its table of the gateway's layers is GATEWAY_LAYERS, bottom up", () => {
    const rows = section("The gateway's layers").split("\n").flatMap((line) => {
      const cells = line.split("|").map((cell) => cell.trim())
      return /^\d+$/.test(cells[1] ?? "") ? [spans(cells[2] ?? "")] : []
    })
    assert.deepStrictEqual(rows, GATEWAY_LAYERS)
  })

  it("the layers cover every folder of gateway/src, and its only file there is index.ts", () => {
    const entries = readdirSync(path.join(ROOT, "packages", "gateway", "src"), { withFileTypes: true })
    const folders = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort()
    assert.deepStrictEqual(folders, GATEWAY_LAYERS.flat().sort())
    assert.deepStrictEqual(entries.filter((entry) => entry.isFile()).map((entry) => entry.name), ["index.ts"])
  })

  it("the call path names every hop, in both eras and on both fronts", () => {
    const hops = spans(section("The path of one tool call"))
    for (
      const hop of [
        "gateway/src/serve/HttpFront.ts",
        "gateway/src/serve/StdioFront.ts",
        "gateway/src/front/http/mcp/HttpSessionTransport.ts",
        "gateway/src/front/http/mcp/ModernRoute.ts",
        "gateway/src/front/FrontServer.ts",
        "gateway/src/runtime/Gateway.ts",
        "gateway/src/runtime/ConfigGeneration.ts",
        "gateway/src/calls/GatewayCalls.ts",
        "core/src/internal/CallProgram.ts",
        "gateway/src/audit/WriteAhead.ts",
        "mcp/src/RoundTrip.ts",
        "mcp/src/ParkedCall.ts"
      ]
    ) assert.include(hops, hop)
    const path = section("The path of one tool call")
    assert.include(path, "2025-11-25")
    assert.include(path, "2026-07-28")
  })
})
