/** The `interlock` CLI as a real process, for tests: run it in a directory, and write configs there. */
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { NODE } from "./e2e.ts"

/** The CLI's entry point. */
export const BIN = path.join(import.meta.dirname, "..", "bin", "interlock.ts")

/** A fresh temp directory (`prefix` names it) with a runner of the CLI in it and a config writer. */
export const cliIn = (prefix: string) => {
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  /** Runs `interlock args...` (stdin optional, env added to this process's); exit code and output. */
  const cli = (args: ReadonlyArray<string>, stdin?: string, env: Record<string, string> = {}) =>
    Effect.promise(() =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        const child = execFile(NODE, [BIN, ...args], { cwd: dir, timeout: 30_000, env: { ...process.env, ...env } }, (error, stdout, stderr) =>
          resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }))
        if (stdin !== undefined) child.stdin?.end(stdin)
      }))
  /** Writes a JSON config into the directory; its path. */
  const writeConfig = (name: string, config: unknown) => {
    const file = path.join(dir, name)
    writeFileSync(file, JSON.stringify(config))
    return file
  }
  return { dir, cli, writeConfig }
}

/** The text blocks of a tool result, joined. */
export const toolText = (result: unknown): string =>
  ((result as { content: Array<{ text?: string }> }).content ?? []).map((block) => block.text ?? "").join("")
