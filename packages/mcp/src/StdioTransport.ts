/**
 * The stdio client transport: spawns the server in its own process group, speaks newline-delimited
 * JSON-RPC over its stdin and stdout, keeps the tail of its stderr, and records how it exited.
 * Closing it ends the whole process group (SIGTERM, then SIGKILL) and waits for the exit, so no
 * child or grandchild survives. A malformed line is reported to `onerror` and skipped.
 */
import { type JSONRPCMessage, ReadBuffer, serializeMessage, type Transport } from "@modelcontextprotocol/client"
import { getDefaultEnvironment } from "@modelcontextprotocol/client/stdio"
import { type ChildProcess, spawn } from "node:child_process"
import type { Readable } from "node:stream"
import type { StdioOptions } from "./HubConfig.ts"
import { StderrTail } from "./StderrTail.ts"

/** How the child process ended, once it has. */
export interface ExitInfo {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

const KILL_GRACE_MS = 1_500

/** An MCP Transport over a child process's stdio. */
export class StdioTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: ((message: JSONRPCMessage) => void) | undefined
  readonly options: StdioOptions
  readonly stderrTail: StderrTail
  /** Set when the process has exited. */
  exit: ExitInfo | undefined
  private child: ChildProcess | undefined
  private readonly buffer = new ReadBuffer()
  private exited: Promise<void> | undefined
  private closed = false

  constructor(options: StdioOptions, stderrBytes: number) {
    this.options = options
    this.stderrTail = new StderrTail(stderrBytes)
  }

  /** The child's pid once started (the SDK also uses `pid` and `stderr` to recognise a stdio transport). */
  get pid(): number | null {
    return this.child?.pid ?? null
  }

  /** The child's stderr stream; its bytes also go to {@link stderrTail}. */
  get stderr(): Readable | null {
    return this.child?.stderr ?? null
  }

  start(): Promise<void> {
    if (this.child !== undefined) return Promise.reject(new Error("stdio transport already started"))
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.command, [...(this.options.args ?? [])], {
        env: { ...getDefaultEnvironment(), ...this.options.env },
        cwd: this.options.cwd,
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
        detached: true
      })
      this.child = child
      this.exited = new Promise((done) => {
        child.once("exit", (code, signal) => {
          this.exit = { code, signal }
          done()
        })
        child.once("error", () => done())
      })
      child.once("error", (error) => {
        reject(error)
        this.onerror?.(error)
      })
      child.once("spawn", () => resolve())
      child.once("close", () => {
        this.handOverStderr()
        this.closed = true
        this.onclose?.()
      })
      child.stderr?.on("data", (chunk: Buffer) => this.stderrTail.push(chunk))
      child.stdin?.on("error", (error) => this.onerror?.(error))
      child.stdout?.on("error", (error) => this.onerror?.(error))
      child.stdout?.on("data", (chunk: Buffer) => this.receive(chunk))
    })
  }

  private receive(chunk: Buffer): void {
    this.buffer.append(chunk)
    while (true) {
      let message: JSONRPCMessage | null
      try {
        message = this.buffer.readMessage()
      } catch (error) {
        // A line that is not a JSON-RPC message: report it and keep reading.
        this.onerror?.(
          new Error(`malformed message from the server (${error instanceof Error ? error.name : "error"})`)
        )
        continue
      }
      if (message === null) return
      this.onmessage?.(message)
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin
    if (stdin === undefined || stdin === null || this.closed || stdin.destroyed) {
      return Promise.reject(new Error("the server process is not running"))
    }
    return new Promise((resolve, reject) => {
      const ok = stdin.write(serializeMessage(message), (error) => (error ? reject(error) : undefined))
      if (ok) resolve()
      else stdin.once("drain", () => resolve())
    })
  }

  private closing: Promise<void> | undefined
  /** Whether the process had exited when close was first asked for (undefined until then). */
  private endedOnItsOwn: boolean | undefined

  /** Whether the process ended on its own (it exited before anyone closed the transport). */
  get endedAlone(): boolean {
    return this.exit !== undefined && this.endedOnItsOwn !== false
  }

  /** Ends the process group and waits for the child to exit. Idempotent. */
  close(): Promise<void> {
    this.endedOnItsOwn ??= this.exit !== undefined
    this.closing ??= this.shutdown()
    return this.closing
  }

  private async shutdown(): Promise<void> {
    const child = this.child
    if (child === undefined) return
    if (this.exit === undefined && child.pid !== undefined) {
      try {
        child.stdin?.end()
      } catch {
        // already closed
      }
      this.killGroup(child.pid, "SIGTERM")
      const timer = new Promise<"late">((resolve) => setTimeout(() => resolve("late"), KILL_GRACE_MS).unref())
      if ((await Promise.race([this.exited, timer])) === "late") this.killGroup(child.pid, "SIGKILL")
      await this.exited
    } else if (child.pid !== undefined) {
      // The leader is gone; make sure nothing it started lingers in its group.
      this.killGroup(child.pid, "SIGKILL")
    }
    this.buffer.clear()
    this.handOverStderr()
    if (!this.closed) {
      this.closed = true
      child.stdout?.destroy()
      child.stderr?.destroy()
      this.onclose?.()
    }
  }

  private killGroup(pid: number, signal: NodeJS.Signals): void {
    try {
      process.kill(-pid, signal)
    } catch {
      try {
        process.kill(pid, signal)
      } catch {
        // already gone
      }
    }
  }

  private handedOver = false

  /** With `onStderr`, hands the stderr tail over once, after the process has ended. */
  private handOverStderr(): void {
    const sink = this.options.onStderr
    if (sink === undefined || this.handedOver) return
    this.handedOver = true
    const tail = this.stderrTail.text()
    if (tail.length > 0) sink(tail, { stopped: this.endedOnItsOwn === false })
  }

  /** A one-line description of how the process ended, with the tail of its stderr unless `onStderr` takes it. */
  describeExit(): string {
    const command = JSON.stringify(this.options.command)
    const how = this.exit === undefined
      ? `server process ${command} closed its output`
      : this.exit.signal !== null
      ? `server process ${command} was killed by ${this.exit.signal}`
      : `server process ${command} exited with code ${this.exit.code}`
    const stderr = this.options.onStderr === undefined ? this.stderrTail.text(600) : ""
    return stderr.length > 0 ? `${how}; stderr: ${stderr}` : how
  }
}
