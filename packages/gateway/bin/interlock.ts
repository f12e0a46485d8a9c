#!/usr/bin/env node
// The `interlock` CLI on the sources, for development in this repository (`npm start`, the
// benchmarks, the tests of what a run from the sources loads; the other CLI tests run vitest.cli.ts's
// bundle of the sources). It adds the `@interlock/source` export condition to every import, so the
// packages resolve to their `.ts` sources rather than to `dist/`, then runs the published bin.
import { registerHooks } from "node:module"

registerHooks({
  resolve: (specifier, context, nextResolve) =>
    nextResolve(specifier, { ...context, conditions: [...context.conditions, "@interlock/source"] })
})
await import("./interlock.js")
