/**
 * The gateway on stdio: one host, speaking MCP over this process's stdin and stdout. The Effect
 * completes when the host closes the stream; closing the scope closes the connection.
 */
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio"
import { Effect } from "effect"
import type { Readable, Writable } from "node:stream"
import { frameGuard } from "./FrameGuard.ts"
import { makeFrontServer } from "./FrontServer.ts"
import { Gateway } from "./Gateway.ts"

/** Serves one host over the given streams (default stdin/stdout) until it disconnects. */
export const serveStdio = (streams?: { readonly input: Readable; readonly output: Writable }) =>
  Effect.gen(function*() {
    const gateway = yield* Gateway
    const server = makeFrontServer(gateway.deps, undefined)
    const input = streams?.input ?? process.stdin
    const output = streams?.output ?? process.stdout
    const guarded = input.pipe(frameGuard(output))
    const transport = new StdioServerTransport(guarded, output)
    const closed = new Promise<void>((resolve) => {
      const previous = server.onclose
      server.onclose = () => {
        previous?.()
        resolve()
      }
    })
    guarded.once("end", () => void server.close())
    yield* Effect.acquireRelease(
      Effect.promise(() => server.connect(transport)),
      () => Effect.promise(() => server.close().catch(() => undefined))
    )
    yield* Effect.promise(() => closed)
  })
