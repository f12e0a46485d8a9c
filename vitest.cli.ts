/**
 * Vitest's global setup: the `interlock` CLI bundled from the sources once per run (scripts/bundle.ts, as `npm run
 * build` bundles dist/), with a bin that runs it, for the tests that start the CLI as a process. From the sources, each
 * such process loads 350 to 900 modules, about 0.4 to 1 s of CPU; the bundle takes a tenth of that.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { build } from "rolldown"
import type { TestProject } from "vitest/node"
import { bundle } from "./packages/gateway/scripts/bundle.ts"

declare module "vitest" {
  export interface ProvidedContext {
    /** The bin that runs the CLI bundled from the sources at the start of this run. */
    readonly interlockBin: string
  }
}

/** Under node_modules, so that what the bundle leaves out (Cedar's WASM build) resolves from the workspace. */
const CACHE = path.join(import.meta.dirname, "node_modules", ".cache")

const GATEWAY = path.join(import.meta.dirname, "packages", "gateway")

/**
 * The bin: bin/interlock.js with `#cli` and `#claude-hook-local` resolved to the bundles (the plain claude-hook runs
 * the hook's CommonJS bundle through its code cache, as from dist/), and every other import under the source
 * condition, as bin/interlock.ts runs it (so a config written as code still runs from src/).
 */
const binText = (bundled: Record<string, string>, bin: string): string =>
  `import { registerHooks } from "node:module"
const bundled = ${JSON.stringify(bundled)}
registerHooks({
  resolve: (specifier, context, nextResolve) =>
    Object.hasOwn(bundled, specifier)
      ? { url: bundled[specifier], shortCircuit: true }
      : nextResolve(specifier, { ...context, conditions: [...context.conditions, "@interlock/source"] })
})
await import(${JSON.stringify(bin)})
`

/** Bundles the CLI into a fresh folder, provides its bin to the tests, and removes the folder after the run. */
export default async function setup(project: TestProject): Promise<() => void> {
  mkdirSync(CACHE, { recursive: true })
  const dir = mkdtempSync(path.join(CACHE, "interlock-test-cli-"))
  await bundle({ from: "source", outDir: path.join(dir, "bundle") })
  // dir/cli/ClaudeHookBundle.js finds the hook's bundle at ../bundle/hook/, as dist/cli/ does.
  await build({
    cwd: GATEWAY,
    platform: "node",
    input: { ClaudeHookBundle: path.join(GATEWAY, "src", "cli", "ClaudeHookBundle.ts") },
    external: [/^node:/],
    logLevel: "warn",
    output: { dir: path.join(dir, "cli"), format: "esm" }
  })
  const bin = path.join(dir, "interlock.mjs")
  const url = (...parts: Array<string>) => pathToFileURL(path.join(dir, ...parts)).href
  writeFileSync(
    bin,
    binText(
      { "#cli": url("bundle", "Cli.js"), "#claude-hook-local": url("cli", "ClaudeHookBundle.js") },
      pathToFileURL(path.join(GATEWAY, "bin", "interlock.js")).href
    )
  )
  project.provide("interlockBin", bin)
  return () => rmSync(dir, { recursive: true, force: true })
}
