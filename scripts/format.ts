#!/usr/bin/env node
/**
 * The repository's formatter: dprint's TypeScript plugin (WebAssembly, from node_modules) run by
 * @dprint/formatter with the settings of dprint.json, so no platform binary is needed.
 *
 *   node scripts/format.ts           rewrites every unformatted file
 *   node scripts/format.ts --check   lists them and exits 1
 */
import { createFromBuffer } from "@dprint/formatter"
import { getPath } from "@dprint/typescript"
import { glob, readFile, writeFile } from "node:fs/promises"
import * as path from "node:path"

interface Settings {
  readonly lineWidth: number
  readonly indentWidth: number
  readonly typescript: Record<string, unknown>
  readonly includes: ReadonlyArray<string>
  readonly excludes: ReadonlyArray<string>
}

const root = path.join(import.meta.dirname, "..")
const check = process.argv.includes("--check")
const settings: Settings = JSON.parse(await readFile(path.join(root, "dprint.json"), "utf8"))

const formatter = createFromBuffer(await readFile(getPath()))
formatter.setConfig({ lineWidth: settings.lineWidth, indentWidth: settings.indentWidth }, settings.typescript)
const problems = formatter.getConfigDiagnostics()
if (problems.length > 0) {
  process.stderr.write(
    `dprint.json: ${problems.map((problem) => `${problem.propertyName}: ${problem.message}`).join("; ")}\n`
  )
  process.exit(2)
}

const unformatted: Array<string> = []
for await (const file of glob([...settings.includes], { cwd: root, exclude: [...settings.excludes] })) {
  const filePath = path.join(root, file)
  const fileText = await readFile(filePath, "utf8")
  const formatted = formatter.formatText({ filePath, fileText })
  if (formatted === fileText) continue
  unformatted.push(file)
  if (!check) await writeFile(filePath, formatted)
}

unformatted.sort()
if (check && unformatted.length > 0) {
  process.stderr.write(`not formatted (run npm run format):\n${unformatted.map((file) => `  ${file}\n`).join("")}`)
  process.exit(1)
}
process.stdout.write(
  `${check ? "checked" : "formatted"}: ${unformatted.length} file(s) ${check ? "to format" : "rewritten"}\n`
)
