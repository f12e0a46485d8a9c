/**
 * What the real Claude Code tests share: one folder per test file for its configs (removed after the file, with
 * Claude's runs), the bridge's config in it, the fake model's Bash steps and the check that a tool was refused.
 */
import { afterAll, assert } from "@effect/vitest"
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { inject } from "vitest"
import { bridgeCommand, NODE, removeRuns, resultText, type Run } from "./harness.ts"

/**
 * The `interlock` bin as these tests run it: on the bundle of the sources made at the start of the run (vitest.cli.ts).
 */
export const INTERLOCK = [NODE, inject("interlockBin")]

/** The bridge's hook command for a config file (harness.ts's bridgeCommand), run by {@link INTERLOCK}. */
export const hookCommand = (config: string, timeout = 30): string => bridgeCommand(config, timeout, INTERLOCK)

/** The gateway tests' fixture servers. */
export const FIXTURES = path.join(import.meta.dirname, "..", "fixtures")

/** The fake model's step that calls Bash with `command`. */
export const bash = (command: string) => ({ tool: "Bash", input: { command, description: "run it" } })

/** The fake model's last step: it answers and ends the turn. */
export const done = { text: "All done." }

/** How long one test of the real host may take (ms). */
export const TIMEOUT = 60_000

/**
 * For one test file: a temp folder (removed after the file, with Claude's runs), a JSON writer into it, the bridge's
 * config.
 */
export const configFolder = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "interlock-claude-code-config-"))
  afterAll(() => {
    removeRuns()
    rmSync(dir, { recursive: true, force: true })
  })
  const writeJson = (name: string, value: unknown) => {
    const file = path.join(dir, name)
    writeFileSync(file, JSON.stringify(value, null, 2))
    return file
  }
  /** The bridge's config: default deny, a few rules for Bash, Read and the gateway's MCP tools. */
  const config = writeJson("interlock.config.json", {
    servers: {},
    audit: { path: path.join(dir, "audit.db") },
    policy: {
      default: "deny",
      rules: [
        {
          id: "echo-ok",
          match: "claude/Bash",
          decision: "allow",
          when: { args: { command: { startsWith: "echo " } } }
        },
        {
          id: "printf-asks",
          match: "claude/Bash",
          decision: "ask",
          reason: "printf needs a human",
          when: { args: { command: { startsWith: "printf " } } }
        },
        { id: "echo-tool", match: "interlock/echo", decision: "allow" }
      ]
    }
  })
  return { dir, writeJson, config }
}

/** Asserts that the tool did not run (it writes marker.txt) and that the model's result names `text`. */
export const refused = (run: Run, text: string) => {
  assert.isFalse(existsSync(path.join(run.project, "marker.txt")), "the tool ran")
  assert.strictEqual(run.toolResults.length, 1)
  assert.isTrue(run.toolResults[0]!.is_error)
  assert.include(resultText(run.toolResults[0]!.content), text)
}
