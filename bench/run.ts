/**
 * `npm run bench -- <suite...> [--option=value...]`: runs the named suites (all when none is named).
 * Each suite is a module bench/<suite>.ts whose default export runs it and reports through
 * harness.ts; a suite that takes options reads them from process.argv.
 */
import { readdirSync } from "node:fs"
import { dirname } from "node:path"
import { fileURLToPath } from "node:url"

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
for (const suite of requested.length > 0 ? requested : available) {
  const module = (await import(`./${suite}.ts`)) as { default: () => Promise<void> }
  await module.default()
}
