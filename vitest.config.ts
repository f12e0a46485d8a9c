import { defineConfig, mergeConfig } from "vitest/config"
import { LongestFirst } from "./vitest.sequencer.ts"
import { sourceConditions } from "./vitest.shared.ts"

// One project over every package's tests and docs (the README suite). Each package's vitest.config.ts, with the
// same settings, runs its own tests from inside it. Separate projects cannot share a worker, so with one project per
// package each started its own three, each loading effect, the SDK and our sources: a full run cost about twice the
// CPU. Filter by path instead of by project: `npx vitest run packages/gateway`.
export default defineConfig(mergeConfig(sourceConditions, {
  test: {
    include: ["packages/*/test/**/*.test.ts", "docs/test/**/*.test.ts"],
    sequence: { sequencer: LongestFirst }
  }
}))
