import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"
import { LongestFirst } from "./vitest.sequencer.ts"

// One project per package, and docs (the README suite). Vitest 4+ replaced vitest.workspace.ts with test.projects.
// The pool's size is the root's maxWorkers; each project sets the same in vitest.shared.ts (projects do not inherit
// it). Most test files wait on child processes and sockets, so one worker more than the cores keeps both busy.
export default defineConfig({
  test: {
    projects: ["packages/*", "docs"],
    maxWorkers: availableParallelism() + 1,
    sequence: { sequencer: LongestFirst }
  }
})
