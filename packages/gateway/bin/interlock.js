#!/usr/bin/env node
// The published `interlock` CLI. Claude Code runs `interlock claude-hook` on every tool call, so
// start-up is what this file is about. Each option below was measured against `node -e 0` in the
// same run (`npm run bench -- startup`, bench/results/startup.json); what is here is what won:
// 1. It checks the Node version before it loads anything, so an older Node prints one line.
// 2. `--help` (or no argument) prints dist/bundle/help.txt, effect/cli's own help for every
//    command, rendered by `npm run build`: no module is loaded (1.3x `node -e 0`).
// 3. Any other command runs the bundle (`#cli`: dist/bundle/Cli.js, rolldown over dist/cli/Cli.js,
//    minified). Each command is its own chunk, loaded when it runs; effect and the rest are
//    inlined and tree-shaken, and `claude-hook [--config F]` and `check [--config F] [--no-connect]`
//    skip effect/cli altogether (Cli.ts, DirectArgs.ts).
//    The unbundled dist takes 2.3x as long for the same hook: loading effect's modules one by one.
// 4. `module.enableCompileCache()` (Node >= 22.1) keeps V8's compiled code between runs; it saved
//    0.6-0.9x of `node -e 0` on the hook, so it stays.
// 5. `claude-hook --gateway URL` forwards the event to a running gateway (#claude-hook-forward:
//    dist/cli/ClaudeHookForward.js, Node's http and nothing else) and denies (exit 2) when it does
//    not answer in time.
// 6. A config written as code (interlock.config.ts/.mts/.js, by --config or found in the working
//    directory) imports @interlock/* and effect itself, from node_modules. Such a run loads the
//    unbundled CLI (`#cli-modules`: dist/cli/Cli.js) instead, so that the config and the CLI share
//    one copy of each package (one Verdict, one ToolResult, one Effect runtime).
// `node --conditions=@interlock/source` (bin/interlock.ts, `npm start`) resolves both to the sources.
const MINIMUM = [22, 19]
const current = process.versions.node.split(".").map(Number)
if (current[0] < MINIMUM[0] || (current[0] === MINIMUM[0] && current[1] < MINIMUM[1])) {
  process.stderr.write("interlock needs Node.js " + MINIMUM.join(".") + " or newer; this is Node.js " + process.versions.node + "\n")
  // Claude Code lets a tool run when its hook exits 1; a hook exits 2, its blocking exit.
  process.exit(process.argv[2] === "claude-hook" ? 2 : 1)
}
// Builtins through getBuiltinModule (Node >= 22.3), not `import`: an ESM import of node:fs builds
// its ESM facade, which loads the fs streams (~5 ms), and this file runs on every hook event.
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
  process.stderr.write("interlock: dist/ is not built, so this runs from the sources (`npm run build` makes it faster)\n")
  bundle = import.meta.resolve("#cli")
}
const help = new URL("help.txt", bundle)
if (!bundle.endsWith(".ts") && (args.length === 0 || (args.length === 1 && (args[0] === "--help" || args[0] === "-h"))) && existsSync(help)) {
  process.stdout.write(readFileSync(help))
} else if (args[0] === "claude-hook" && (await import("#claude-hook-forward")).forwards(args)) {
  const { main } = await import("#claude-hook-forward")
  await main(args.slice(1))
} else {
  const { CONFIG_NAMES } = await import("#config-names")
  const cli = await import(usesCodeConfig(args, CONFIG_NAMES) ? "#cli-modules" : "#cli")
  cli.main(args)
}

/** Whether a config file is JSON (`.json`, or `.jsonc` with comments) rather than code. */
function isJson(file) {
  return file.endsWith(".json") || file.endsWith(".jsonc")
}

/** Whether the config this run reads is code: --config names a non-JSON file, or none is given and the first default name found here is code. */
function usesCodeConfig(args, names) {
  for (const [i, arg] of args.entries()) {
    const given = arg === "--config" || arg === "-c" ? args[i + 1] : arg.startsWith("--config=") ? arg.slice("--config=".length) : undefined
    if (given !== undefined) return !isJson(given)
  }
  const found = names.find((name) => existsSync(resolve(name)))
  return found !== undefined && !isJson(found)
}
