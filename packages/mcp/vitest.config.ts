import { defineProject, mergeConfig } from "vitest/config"
import { sourceConditions } from "../../vitest.shared.ts"

export default defineProject(mergeConfig(sourceConditions, {
  test: {
    name: "mcp",
    include: ["test/**/*.test.ts"],
    // These tests spawn real servers (about a second each on a 2-core machine) and speak real HTTP.
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
}))
