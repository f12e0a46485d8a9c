/**
 * `node scripts/bundle.ts [outDir]` (run by `npm run build` after tsc): bundles the built CLI
 * (dist/cli/Cli.js) with rolldown into dist/bundle/ (or outDir), one chunk per command plus the
 * chunks they share, and renders effect/cli's root help into help.txt beside it, which the bin
 * prints for `--help` without loading anything. Why a bundle: see the header of bin/interlock.js.
 * The plain `claude-hook` has a bundle of its own in hook/ (ClaudeHookLocal.ts, CommonJS, which
 * src/cli/CodeCache.ts runs with V8 code caches made after a run): see {@link HOOK_DIR}.
 *
 * What goes in: everything but Node's built-ins and the optional native add-ons that `pg` and `ws`
 * try to require (absent, and caught, at run time). The bundle runs only in the bin's own process,
 * where it is the only copy of effect and of @interlock/*; a config written as code runs the
 * unbundled dist instead (bin/interlock.js), so no user code ever meets a second copy.
 */
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { build } from "rolldown"

const PACKAGE = path.join(import.meta.dirname, "..")

/** Optional native add-ons that dependencies require inside try/catch; they stay unresolved. */
const OPTIONAL_NATIVE = ["pg-native", "bufferutil", "utf-8-validate"]

/**
 * Cedar's WASM build reads its .wasm file beside itself (`__dirname`): it is loaded from node_modules, never bundled.
 */
const WASM_PACKAGES = [/^@cedar-policy\/cedar-wasm/]

/**
 * Modules whose top level only defines things: our packages, which register nothing globally, and
 * those whose package.json says so (effect, @effect/*). An import of one whose exports go unused is
 * dropped, so a command's chunk holds only what it calls.
 */
const pure = (id: string): boolean => /[\\/]packages[\\/](core|claude|cedar|mcp|gateway)[\\/](dist|src)[\\/]/.test(id)

/** One `import ... from "node:x"` declaration as rolldown prints it (minified). */
const BUILTIN_IMPORT = /import\s*(?:([\w$]+)\s*,?\s*)?(?:\*\s*as\s+([\w$]+)|\{([^}]*)\})?\s*from\s*"(node:[\w/:]+)";?/g

/**
 * A builtin import as `process.getBuiltinModule` (Node >= 22.3): an ESM `import` of a builtin
 * builds its ESM facade, which reads every export, and so loads what the builtin keeps lazy
 * (`node:fs` loads its streams, ~5 ms); the CommonJS object costs nothing. Builtins have no live
 * bindings, and the chunks import them first, so the values are the same.
 */
export const builtinImport = (
  _match: string,
  defaultName: string | undefined,
  namespace: string | undefined,
  named: string | undefined,
  specifier: string
): string => {
  const module = `globalThis.process.getBuiltinModule(${JSON.stringify(specifier)})`
  const whole = defaultName ?? namespace
  const pairs = (named ?? "").split(",").map((entry) => entry.trim()).filter((entry) => entry !== "").map((entry) => {
    const [imported, local = imported] = entry.split(/\s+as\s+/)
    return { imported, local }
  })
  const declarations = whole === undefined ? [] : [`${whole}=${module}`]
  const source = whole ?? module
  for (const { imported, local } of pairs) {
    declarations.push(imported === "default" ? `${local}=${source}` : `${local}=${source}.${imported}`)
  }
  return declarations.length === 0 ? `${module};` : `const ${declarations.join(",")};`
}

/**
 * Where the claude-hook bundle goes, inside outDir: CommonJS, for `vm.Script`, whose code cache can be made
 * after a run (an ES module's only when it compiles); its chunks keep their names from build to build
 * (no hash), so that a new build's cache replaces the old one's. ClaudeHookBundle.ts names its entry.
 */
export const HOOK_DIR = "hook"

/** Options of {@link bundle}. */
export interface BundleOptions {
  /** Where the chunks, their source maps and help.txt go. */
  readonly outDir: string
  /**
   * "dist" (the build) bundles what tsc emitted; "source" bundles src/ through the
   * `@interlock/source` condition, for a test that must not depend on a build.
   */
  readonly from: "dist" | "source"
}

/** A module of src/cli as rolldown takes it: its tsc output, or its source. */
const cliModule = (from: BundleOptions["from"], name: string): string =>
  from === "dist" ? path.join(PACKAGE, "dist", "cli", `${name}.js`) : path.join(PACKAGE, "src", "cli", `${name}.ts`)

/** What both bundles share: what goes in, tree shaking, minified, with source maps. */
const shared = (from: BundleOptions["from"]) => ({
  cwd: PACKAGE,
  platform: "node" as const,
  external: [/^node:/, ...OPTIONAL_NATIVE, ...WASM_PACKAGES],
  treeshake: { moduleSideEffects: (id: string) => (pure(id) ? false : undefined) },
  logLevel: "warn" as const,
  ...(from === "source" ? { resolve: { conditionNames: ["@interlock/source", "import", "default"] } } : {})
})

const OUTPUT = { sourcemap: true, minify: true, keepNames: true } as const

/**
 * The maps keep their mappings and source paths (stack traces, the start-up test) but not a copy of every source: that
 * would make up most of the tarball.
 */
const dropSources = (dir: string): void => {
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".map"))) {
    const map = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as { sourcesContent?: unknown }
    delete map.sourcesContent
    writeFileSync(path.join(dir, file), JSON.stringify(map))
  }
}

/** Bundles the CLI and writes its help.txt, then the claude-hook bundle into {@link HOOK_DIR}. */
export const bundle = async ({ from, outDir }: BundleOptions): Promise<void> => {
  await build({
    ...shared(from),
    input: { Cli: cliModule(from, "Cli") },
    plugins: [{
      name: "builtins-without-esm-facade",
      renderChunk: (code) => code.replace(BUILTIN_IMPORT, builtinImport)
    }],
    output: { ...OUTPUT, dir: outDir, format: "esm", chunkFileNames: "[name]-[hash].js", cleanDir: true }
  })
  const hookDir = path.join(outDir, HOOK_DIR)
  // CommonJS takes a builtin through `require`, which gives its CommonJS object (no ESM facade); an
  // import() of a package (Cedar's WASM build) becomes a require() too, as vm.Script runs no import().
  await build({
    ...shared(from),
    input: { ClaudeHook: cliModule(from, "ClaudeHookLocal") },
    output: {
      ...OUTPUT,
      dir: hookDir,
      format: "cjs",
      dynamicImportInCjs: false,
      entryFileNames: "[name].cjs",
      chunkFileNames: "[name].cjs",
      cleanDir: true
    }
  })
  dropSources(outDir)
  dropSources(hookDir)
  const help = execFileSync(process.execPath, [
    "--input-type=module",
    "-e",
    `(await import(${JSON.stringify(path.join(outDir, "Cli.js"))})).main(["--help"])`
  ], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" }
  })
  if (!help.includes("claude-hook")) throw new Error(`the rendered help lists no commands:\n${help}`)
  writeFileSync(path.join(outDir, "help.txt"), help)
}

if (import.meta.main) {
  await bundle({ from: "dist", outDir: path.resolve(process.argv[2] ?? path.join(PACKAGE, "dist", "bundle")) })
}
