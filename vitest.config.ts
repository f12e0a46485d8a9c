import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

// One project per package, and docs (the README suite). Vitest 4+ replaced vitest.workspace.ts with test.projects.
// Most test files wait on child processes and sockets rather than compute, so one worker more than the cores
// (Vitest's default is one fewer: a single worker on a 2-core machine) keeps both cores busy.
export default defineConfig({
  test: {
    projects: ["packages/*", "docs"],
    maxWorkers: availableParallelism() + 1
  }
})
