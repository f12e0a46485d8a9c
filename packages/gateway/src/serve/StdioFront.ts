/**
 * The gateway on stdio: one host, speaking MCP over stdin and stdout, in the era SDK 2's serveStdio decides from
 * its first message, with one front server of that era. The transport is HostStdioTransport: every line passes the
 * frame guard and FrameCheck, so each malformed frame is answered, and is read once, with JsonText, so the policy
 * sees the keys the host wrote. It completes when the host closes the stream.
 */
import { serveStdio as serveEras } from "@modelcontextprotocol/server/stdio"
import { Effect } from "effect"
import type { Readable, Writable } from "node:stream"
import { makeFrontServer } from "../front/FrontServer.ts"
import { HostStdioTransport } from "../front/stdio/HostStdioTransport.ts"
import { followListens } from "../front/stdio/StdioListens.ts"
import { claimStdout } from "../front/stdio/StdoutClaim.ts"
import { Gateway } from "../runtime/Gateway.ts"

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
    const input = streams?.input ?? process.stdin
    const output = streams?.output ?? (yield* claimStdout(gateway.plan.redactions))
    const closed = new Promise<void>((resolve) => {
      input.once("end", resolve)
      input.once("close", resolve)
    })
    const listens = followListens(gateway.deps, new HostStdioTransport(input, output))
    yield* Effect.acquireRelease(
      Effect.sync(() =>
        serveEras(({ era }) => listens.pinned(makeFrontServer(gateway.deps, undefined, era), era), {
          transport: listens.transport
        })
      ),
      (handle) =>
        Effect.promise(() => handle.close().catch(() => undefined)).pipe(Effect.andThen(Effect.sync(listens.close)))
    )
    yield* Effect.promise(() => closed)
  })
