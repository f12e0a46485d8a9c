/**
 * `node scripts/bundle.ts [outDir]` (run by `npm run build` after tsc): bundles the built CLI
 * (dist/cli/Cli.js) with rolldown into dist/bundle/ (or outDir), one chunk per command plus the
 * chunks they share, and renders effect/cli's root help into help.txt beside it, which the bin
 * prints for `--help` without loading anything. Why a bundle: see the header of bin/interlock.js.
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

/** Cedar's WASM build reads its .wasm file beside itself (`__dirname`): it is loaded from node_modules, never bundled. */
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

/** Bundles the CLI and writes its help.txt. */
export const bundle = async ({ from, outDir }: BundleOptions): Promise<void> => {
  await build({
    cwd: PACKAGE,
    input: {
      Cli: from === "dist" ? path.join(PACKAGE, "dist", "cli", "Cli.js") : path.join(PACKAGE, "src", "cli", "Cli.ts")
    },
    platform: "node",
    external: [/^node:/, ...OPTIONAL_NATIVE, ...WASM_PACKAGES],
    treeshake: { moduleSideEffects: (id) => (pure(id) ? false : undefined) },
    logLevel: "warn",
    plugins: [{
      name: "builtins-without-esm-facade",
      renderChunk: (code) => code.replace(BUILTIN_IMPORT, builtinImport)
    }],
    ...(from === "source" ? { resolve: { conditionNames: ["@interlock/source", "import", "default"] } } : {}),
    output: {
      dir: outDir,
      format: "esm",
      sourcemap: true,
      minify: true,
      keepNames: true,
      chunkFileNames: "[name]-[hash].js",
      cleanDir: true
    }
  })
  // The maps keep their mappings and source paths (stack traces, the start-up test) but not a copy
  // of every source: that would make up most of the tarball.
  for (const file of readdirSync(outDir).filter((name) => name.endsWith(".js.map"))) {
    const map = JSON.parse(readFileSync(path.join(outDir, file), "utf8")) as { sourcesContent?: unknown }
    delete map.sourcesContent
    writeFileSync(path.join(outDir, file), JSON.stringify(map))
  }
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
