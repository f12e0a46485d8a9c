/**
 * The gateway on stdio: one host, speaking MCP over this process's stdin and stdout. Every line
 * from the host passes the frame guard and FrameCheck, so each malformed frame is answered; only
 * the transport writes to the output. The Effect completes when the host closes the stream;
 * closing the scope closes the connection.
 */
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio"
import { Effect } from "effect"
import type { Readable, Writable } from "node:stream"
import { checkFrame } from "./FrameCheck.ts"
import { frameGuard } from "./FrameGuard.ts"
import { makeFrontServer } from "../FrontServer.ts"
import { Gateway } from "../../Gateway.ts"
import { claimStdout } from "./StdoutClaim.ts"

/** The streams a stdio front talks over. */
export interface StdioStreams {
  readonly input: Readable
  readonly output: Writable
}

/**
 * Serves one host over the given streams until it disconnects. Without streams it serves stdin and
 * claims stdout (StdoutClaim), so that nothing but the transport writes there.
 */
export const serveStdio = (streams?: StdioStreams) =>
  Effect.gen(function*() {
    const gateway = yield* Gateway
    const server = makeFrontServer(gateway.deps, undefined)
    const input = streams?.input ?? process.stdin
    const output = streams?.output ?? (yield* claimStdout(gateway.plan.redactions))
    const guarded = input.pipe(frameGuard(output, undefined, checkFrame))
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
