/**
 * The interceptor fixture server (fixtures/interceptor-server.ts) as interceptor configs: over stdio, and over HTTP in
 * a child process.
 */
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import type { Spec } from "./fixtures/interceptor-server.ts"
import { NODE } from "./helpers.ts"

/** The fixture's file, for other packages' tests to spawn. */
export const INTERCEPTOR_SERVER = new URL("./fixtures/interceptor-server.ts", import.meta.url).pathname

/** A fresh file for the fixture to record its invocations in. */
export const recordFile = (): string => path.join(mkdtempSync(path.join(tmpdir(), "interceptors-")), "record.jsonl")

/** What the fixture recorded: each invocation's interceptor, event, phase and payload, in order. */
export const recorded = (
  file: string
): ReadonlyArray<{ readonly name: string; readonly event: string; readonly phase: string; readonly payload: any }> => {
  try {
    return readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))
  } catch {
    return []
  }
}

const env = (specs: ReadonlyArray<Spec>, record?: string) => ({
  INTERCEPTORS: JSON.stringify(specs),
  ...(record === undefined ? {} : { RECORD_FILE: record })
})

/** The fixture over stdio, as the hub's stdio options. */
export const stdioInterceptors = (specs: ReadonlyArray<Spec>, record?: string) => ({
  command: NODE,
  args: [INTERCEPTOR_SERVER],
  env: env(specs, record)
})

/** The fixture over Streamable HTTP in a child process on 127.0.0.1, killed with the scope: its MCP URL. */
export const httpInterceptors = (specs: ReadonlyArray<Spec>, record?: string) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly kill: () => void }, Error>((resume) => {
      const child = spawn(NODE, [INTERCEPTOR_SERVER, "http"], {
        env: { ...process.env, ...env(specs, record) },
        stdio: ["ignore", "ignore", "pipe"]
      })
      let seen = ""
      child.stderr.on("data", (chunk: Buffer) => {
        seen += chunk.toString()
        const port = /LISTENING (\d+)/.exec(seen)?.[1]
        if (port !== undefined) {
          resume(Effect.succeed({ url: `http://127.0.0.1:${port}/mcp`, kill: () => void child.kill("SIGKILL") }))
        }
      })
      child.once("exit", (code) => resume(Effect.fail(new Error(`the interceptor fixture exited with ${code}`))))
    }),
    (server) => Effect.sync(server.kill)
  )
