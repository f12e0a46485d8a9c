/**
 * The real gateway CLI serving stdio (`interlock serve --stdio`) as a child process, spoken to in
 * raw frames: every stdout line is kept, replies (read with JsonText) are awaited by id, stderr is collected.
 */
import { JsonText } from "@interlock/core"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { BIN } from "../cli-process.ts"
import { NODE } from "../e2e.ts"

/** A JSON-RPC reply as the host saw it. */
export interface Reply {
  readonly id?: unknown
  readonly result?: Record<string, unknown>
  readonly error?: { readonly code: number; readonly message: string }
}

/** A raw stdio session with a gateway child. */
export interface RawGateway {
  /** Writes one line (a newline is added). */
  readonly send: (line: string) => void
  /** Waits until `count` replies with this id have arrived (id null: answers to unparseable frames); the last one. */
  readonly reply: (id: unknown, count?: number) => Promise<Reply>
  /** Every stdout line so far. */
  readonly lines: () => ReadonlyArray<string>
  /** Everything written to stderr so far. */
  readonly stderr: () => string
}

const parse = (line: string): Reply | undefined => {
  try {
    return JsonText.parse(line) as Reply
  } catch {
    return undefined
  }
}

/**
 * Whether a line is one JSON-RPC 2.0 message: a request or notification, or a response (id null allowed) with a result
 * or an error.
 */
export const isJsonRpcLine = (line: string): boolean => {
  const message = parse(line) as Record<string, unknown> | undefined
  if (typeof message !== "object" || message === null || Array.isArray(message) || message.jsonrpc !== "2.0") {
    return false
  }
  if ("method" in message) return typeof message.method === "string" && !("result" in message) && !("error" in message)
  const id = message.id
  if (!(id === null || typeof id === "string" || (typeof id === "number" && Number.isFinite(id)))) return false
  if ("result" in message) return !("error" in message) && typeof message.result === "object" && message.result !== null
  const error = message.error as Record<string, unknown> | undefined
  return typeof error === "object" && error !== null && Number.isInteger(error.code) &&
    typeof error.message === "string"
}

/** The protocol revision the raw sessions speak. */
export const LEGACY_VERSION = "2025-06-18"

/**
 * Starts `interlock serve --stdio --config <file>` in `cwd` (node flags first) and initializes it (unless `initialize`
 * is false); killed with the scope.
 */
export const rawStdioGateway = (
  config: string,
  cwd: string,
  nodeFlags: ReadonlyArray<string> = [],
  initialize = true
) =>
  Effect.gen(function*() {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(NODE, [...nodeFlags, BIN, "serve", "--stdio", "--config", config], {
          cwd,
          stdio: ["pipe", "pipe", "pipe"]
        })
      ),
      (child) => Effect.sync(() => child.kill("SIGKILL"))
    )
    const lines: Array<string> = []
    let stderr = ""
    let exited: string | undefined
    const waiters = new Set<() => void>()
    const wake = () => {
      for (const waiter of waiters) waiter()
    }
    let partial = ""
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => {
      const parts = (partial + chunk).split("\n")
      partial = parts.pop() ?? ""
      lines.push(...parts.filter((line) => line.length > 0))
      wake()
    })
    child.stderr.setEncoding("utf8")
    child.stderr.on("data", (chunk: string) => void (stderr += chunk))
    child.on("exit", (code, signal) => {
      exited = `the gateway exited (${code ?? signal}): ${stderr.slice(-2000)}`
      wake()
    })
    child.stdin.on("error", () => undefined)
    const replies = (id: unknown) =>
      lines.map(parse).filter((message) => message !== undefined && !("method" in message) && message.id === id)
    const gateway: RawGateway = {
      send: (line) => void child.stdin.write(`${line}\n`),
      reply: (id, count = 1) =>
        new Promise((resolve, reject) => {
          const check = () => {
            const found = replies(id)
            if (found.length >= count) {
              waiters.delete(check)
              resolve(found[count - 1] as Reply)
            } else if (exited !== undefined) {
              waiters.delete(check)
              reject(new Error(exited))
            }
          }
          waiters.add(check)
          check()
        }),
      lines: () => [...lines],
      stderr: () => stderr
    }
    if (!initialize) return gateway
    gateway.send(JSON.stringify({
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: "raw-host", version: "1.0.0" } }
    }))
    const init = yield* Effect.promise(() => gateway.reply("init"))
    if (init.result === undefined) return yield* Effect.die(new Error(`initialize failed: ${JSON.stringify(init)}`))
    gateway.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
    return gateway
  })
