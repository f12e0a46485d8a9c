/** The `interlock` CLI as a real process, for tests: run it in a directory, and write configs there. */
import { Effect } from "effect"
import { execFile, spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { inject } from "vitest"
import { NODE } from "./e2e.ts"

/** The CLI's entry point on the sources (bin/interlock.ts), for the tests of what a run from the sources loads. */
export const SOURCES_BIN = path.join(import.meta.dirname, "..", "bin", "interlock.ts")

/**
 * The CLI as the tests run it: bin/interlock.js on the bundle of the sources made at the start of the run
 * (vitest.cli.ts).
 */
export const BIN = inject("interlockBin")

/** A fresh temp directory (`prefix` names it) with a runner of the CLI in it and a config writer. */
export const cliIn = (prefix: string) => {
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  /** Runs `interlock args...` (stdin optional, env added to this process's); exit code and output. */
  const cli = (args: ReadonlyArray<string>, stdin?: string, env: Record<string, string> = {}) =>
    Effect.promise(() =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        const child = execFile(
          NODE,
          [BIN, ...args],
          { cwd: dir, timeout: 30_000, env: { ...process.env, ...env } },
          (error, stdout, stderr) =>
            resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
        )
        if (stdin !== undefined) child.stdin?.end(stdin)
      })
    )
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

/**
 * A real `interlock serve` on 127.0.0.1:0 in `dir` (env added to this process's), with its MCP and
 * console URLs and a kill -9 that waits for the exit; killed with the scope.
 */
export const serveHttp = (
  dir: string,
  config: Record<string, unknown>,
  env: Record<string, string> = {},
  name = "interlock.config.json"
) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const file = path.join(dir, name)
      writeFileSync(file, JSON.stringify(config))
      const child = spawn(NODE, [BIN, "serve", "--config", file, "--http", "127.0.0.1:0"], {
        cwd: dir,
        stdio: ["ignore", "pipe", "ignore"],
        env: { ...process.env, ...env }
      })
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
      const [url, consoleUrl] = await new Promise<[string, string]>((resolve, reject) => {
        let out = ""
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString()
          const found = /MCP endpoint: (\S+)\s+Web console: +(\S+?)(?:\?token=\S*)?\s/.exec(out)
          if (found !== null) resolve([found[1], found[2]])
        })
        child.once("exit", () => reject(new Error("interlock serve exited before listening")))
      })
      return { url, consoleUrl, child, kill: () => (child.kill("SIGKILL"), exited) }
    }),
    ({ kill }) => Effect.promise(kill)
  )
