import { defineConfig } from "vitest/config"

// One project per package (Vitest 4+ replaced vitest.workspace.ts with test.projects).
export default defineConfig({
  test: {
    projects: ["packages/*"]
  }
})
