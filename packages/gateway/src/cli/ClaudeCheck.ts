/**
 * `interlock check --claude <settings.json>`: reads a Claude Code settings file and prints the
 * bridge hooks that could fail open (@interlock/claude's SettingsCheck), one line each; any error
 * fails the command (exit 1).
 */
import { SettingsCheck } from "@interlock/claude"
import { ConfigError } from "@interlock/core"
import { Console, Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"

/** Checks the settings file at `file`; fails with a ConfigError when it has errors or cannot be read. */
export const checkClaudeSettings = (file: string): Effect.Effect<void, ConfigError> =>
  Effect.gen(function*() {
    const text = yield* Effect.try({
      try: () => JSON.parse(readFileSync(file, "utf8")) as unknown,
      catch: () => new ConfigError({ path: "--claude", detail: `${file} could not be read as JSON` })
    })
    const findings = SettingsCheck.checkSettings(text, existsSync)
    for (const finding of findings) yield* Console.log(`${finding.level.padEnd(7)} ${finding.path}: ${finding.message}`)
    const errors = findings.filter((finding) => finding.level === "error").length
    if (errors > 0) {
      return yield* Effect.fail(
        new ConfigError({
          path: "--claude",
          detail: `${file}: ${errors} hook problem${errors === 1 ? "" : "s"} that could fail open`
        })
      )
    }
    yield* Console.log(`Claude Code settings OK: ${file} (every tool event runs the bridge, failures block)`)
  })
