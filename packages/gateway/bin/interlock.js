#!/usr/bin/env node
// The published `interlock` CLI. It checks the Node version before it loads anything, so an older
// Node prints one line instead of a stack trace; then it runs the built CLI (`#cli` in package.json;
// `node --conditions=@interlock/source` runs the sources instead, as `npm start` does).
const MINIMUM = [22, 19]
const current = process.versions.node.split(".").map(Number)
if (current[0] < MINIMUM[0] || (current[0] === MINIMUM[0] && current[1] < MINIMUM[1])) {
  process.stderr.write("interlock needs Node.js " + MINIMUM.join(".") + " or newer; this is Node.js " + process.versions.node + "\n")
  process.exit(1)
}
Promise.all([import("#cli"), import("@effect/platform-node"), import("effect")]).then(([cli, platform, { Effect }]) =>
  cli.run.pipe(Effect.scoped, Effect.provide(platform.NodeServices.layer), platform.NodeRuntime.runMain))
