import { defineConfig } from "vitest/config"

// One project per package, and docs (the README suite). Vitest 4+ replaced vitest.workspace.ts with test.projects.
export default defineConfig({
  test: {
    projects: ["packages/*", "docs"]
  }
})
