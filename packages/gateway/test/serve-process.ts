/**
 * `interlock serve` as a real process for tests: started as the bin runs it, its output followed,
 * and waits that end on what the gateway shows (a log line, the console's config hash), never on a
 * fixed time.
 */
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { BIN } from "./cli-process.ts"
import { NODE } from "./e2e.ts"

/** A running `interlock serve`. */
export interface ServeProcess {
  readonly mcpUrl: string
  readonly consoleUrl: string
  readonly pid: number
  /** Everything it wrote, stdout and stderr interleaved. */
  readonly output: () => string
  /** The lines of its output that contain `needle`. */
  readonly lines: (needle: string) => ReadonlyArray<string>
  readonly signal: (signal: NodeJS.Signals) => void
}

/** Polls `check` (every 25 ms, at most `timeoutMs`) until it answers a value; fails naming `what` otherwise. */
export const waitUntil = <A>(
  what: string,
  check: () => Effect.Effect<A | undefined> | A | undefined,
  timeoutMs = 30_000
) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    while (true) {
      const answer = check()
      const value = Effect.isEffect(answer) ? yield* answer : answer
      if (value !== undefined) return value
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* Effect.sleep("25 millis")
    }
  })

/** Starts `interlock serve --config <file> ...flags` in `cwd`; stopped (SIGTERM, then awaited) with the scope. */
export const serveProcess = (cwd: string, file: string, flags: ReadonlyArray<string> = []) =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const child = spawn(NODE, [BIN, "serve", "--config", file, ...flags], { cwd, stdio: ["ignore", "pipe", "pipe"] })
      let out = ""
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk))
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (out += chunk))
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
      const mcpUrl = yield* waitUntil("the banner", () => {
        if (child.exitCode !== null) return Effect.die(new Error(`serve exited (${child.exitCode}): ${out}`))
        return /MCP endpoint: (\S+)/.exec(out)?.[1]
      })
      const lines = (needle: string) => out.split("\n").filter((line) => line.includes(needle))
      const serve: ServeProcess = {
        mcpUrl,
        consoleUrl: mcpUrl.replace(/\/mcp$/, "/"),
        pid: child.pid ?? 0,
        output: () => out,
        lines,
        signal: (signal) => void child.kill(signal)
      }
      return { serve, child, exited }
    }),
    ({ child, exited }) => Effect.promise(() => (child.exitCode === null ? (child.kill("SIGTERM"), exited) : exited))
  ).pipe(Effect.map(({ serve }) => serve))

/** The config hash the console of a running gateway shows as in force. */
export const hashInForce = (serve: ServeProcess) =>
  Effect.promise(async () => {
    const response = await fetch(new URL("/api/state", serve.consoleUrl))
    const body = (await response.json()) as { config: { version: string; hash: string } }
    return body.config.hash
  })

/** Waits until the console shows `hash` in force. */
export const waitForHash = (serve: ServeProcess, hash: string) =>
  waitUntil(
    `config ${hash.slice(0, 12)} in force`,
    () => Effect.map(hashInForce(serve), (shown) => (shown === hash ? shown : undefined))
  )

/** Waits until the output has `count` lines containing `needle`; those lines. */
export const waitForLines = (serve: ServeProcess, needle: string, count = 1) =>
  waitUntil(`${count} line(s) with "${needle}"`, () => {
    const found = serve.lines(needle)
    return found.length >= count ? found : undefined
  })
