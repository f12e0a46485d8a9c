#!/usr/bin/env node
// The published `interlock` CLI; Claude Code runs `interlock claude-hook` on every tool call, so
// start-up matters (the gateway README's start-up section has the measurements). It checks the Node
// version before loading anything; `--help` prints dist/bundle/help.txt; other commands run the bundle
// (#cli), `claude-hook --gateway URL` the forwarder (#claude-hook-forward), a plain `claude-hook` the
// hook's own bundle through its code cache (#claude-hook-local), and a config written as code the
// unbundled CLI (#cli-modules).
const MINIMUM = [22, 19]
const current = process.versions.node.split(".").map(Number)
if (current[0] < MINIMUM[0] || (current[0] === MINIMUM[0] && current[1] < MINIMUM[1])) {
  process.stderr.write(
    "interlock needs Node.js " + MINIMUM.join(".") + " or newer; this is Node.js " + process.versions.node + "\n"
  )
  // Claude Code lets a tool run when its hook exits 1; a hook exits 2, its blocking exit.
  process.exit(process.argv[2] === "claude-hook" ? 2 : 1)
}
// Builtins through getBuiltinModule, not `import`: an ESM import of node:fs builds its ESM facade,
// which loads the fs streams, and this file runs on every hook event.
const { existsSync, readFileSync } = process.getBuiltinModule("node:fs")
const { resolve } = process.getBuiltinModule("node:path")
process.getBuiltinModule("node:module").enableCompileCache?.()

const args = process.argv.slice(2)
let bundle = import.meta.resolve("#cli")
// 7. A clone whose dist/ is not built (`npm install` alone) runs from the sources, as bin/interlock.ts
//    does, and says so on stderr; a copy without sources either says in one line what to run.
if (bundle.startsWith("file:") && !bundle.endsWith(".ts") && !existsSync(new URL(bundle))) {
  if (!existsSync(new URL("../src/cli/Cli.ts", import.meta.url))) {
    process.stderr.write("interlock: this copy of @interlock/gateway has no dist/ build: run `npm run build` in it\n")
    process.exit(args[0] === "claude-hook" ? 2 : 1)
  }
  process.getBuiltinModule("node:module").registerHooks({
    resolve: (specifier, context, nextResolve) =>
      nextResolve(specifier, { ...context, conditions: [...context.conditions, "@interlock/source"] })
  })
  process.stderr.write(
    "interlock: dist/ is not built, so this runs from the sources (`npm run build` makes it faster)\n"
  )
  bundle = import.meta.resolve("#cli")
}
const help = new URL("help.txt", bundle)
const asksHelp = args.length === 0 || (args.length === 1 && (args[0] === "--help" || args[0] === "-h"))
if (!bundle.endsWith(".ts") && asksHelp && existsSync(help)) {
  process.stdout.write(readFileSync(help))
} else if (args[0] === "claude-hook" && (await import("#claude-hook-forward")).forwards(args)) {
  const { main } = await import("#claude-hook-forward")
  await main(args.slice(1))
} else {
  const { CONFIG_NAMES } = await import("#config-names")
  const code = usesCodeConfig(args, CONFIG_NAMES)
  if (code || args[0] !== "claude-hook" || !(await (await import("#claude-hook-local")).main(args))) {
    const cli = await import(code ? "#cli-modules" : "#cli")
    cli.main(args)
  }
}

/** Whether a config file is JSON (`.json`, or `.jsonc` with comments) rather than code. */
function isJson(file) {
  return file.endsWith(".json") || file.endsWith(".jsonc")
}

/**
 * Whether the config this run reads is code: --config names a non-JSON file, or none is given and the first default
 * name found here is code.
 */
function usesCodeConfig(args, names) {
  for (const [i, arg] of args.entries()) {
    const given = arg === "--config" || arg === "-c"
      ? args[i + 1]
      : arg.startsWith("--config=")
      ? arg.slice("--config=".length)
      : undefined
    if (given !== undefined) return !isJson(given)
  }
  const found = names.find((name) => existsSync(resolve(name)))
  return found !== undefined && !isJson(found)
}
