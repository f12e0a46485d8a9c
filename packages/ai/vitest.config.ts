import { defineProject, mergeConfig } from "vitest/config"
import { sourceConditions } from "../../vitest.shared.ts"

export default defineProject(mergeConfig(sourceConditions, {
  test: {
    name: "ai",
    include: ["test/**/*.test.ts"]
  }
}))
