/** The input fixture server (fixtures/input-server.ts) as the tests start it: over stdio, or over Streamable HTTP. */
import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { NODE } from "./e2e.ts"

const FIXTURE = path.join(import.meta.dirname, "fixtures", "input-server.ts")

/** The token the fixture's elicitation message carries. */
export const SECRET = "sk-abcdefghijklmnopqrstuvwxyz0123"

/** The fixture as a stdio server config; `--legacy` offers only the 2025 revisions. */
export const inputServer = (...flags: ReadonlyArray<string>) => ({ command: NODE, args: [FIXTURE, ...flags] })

/** The fixture over Streamable HTTP on a free loopback port, ended with the scope. */
export const inputServerOverHttp = Effect.acquireRelease(
  Effect.callback<{ url: string; kill: () => void }, Error>((resume) => {
    const child = spawn(NODE, [FIXTURE, "--http"], { stdio: ["ignore", "pipe", "inherit"] })
    child.stdout.once("data", (chunk: Buffer) => {
      const { port } = JSON.parse(chunk.toString()) as { port: number }
      resume(Effect.succeed({ url: `http://127.0.0.1:${port}/mcp`, kill: () => void child.kill() }))
    })
    child.once("error", (error) => resume(Effect.fail(error)))
  }),
  (server) => Effect.sync(server.kill)
)
