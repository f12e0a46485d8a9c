/**
 * The SDK Transport toward a stdio host, behaving as the SDK's StdioServerTransport but reading the host's frames
 * itself: each line passes the frame guard (FrameGuard.ts), is read once with JsonText and checked by FrameCheck, and
 * the SDK gets the parsed message. The SDK's transport would read it again with JSON.parse, which can read an escaped
 * key as a sibling's backslash key (nodejs/node#63785): a rule could see other arguments than the host sent.
 */
import { type JSONRPCMessage, serializeMessage, type Transport } from "@modelcontextprotocol/server"
import type { Readable, Writable } from "node:stream"
import { checkFrame } from "./FrameCheck.ts"
import { frameGuard, MAX_FRAME_BYTES } from "./FrameGuard.ts"

const toError = (cause: unknown): Error => cause instanceof Error ? cause : new Error(String(cause))

/**
 * The host's stdio as an SDK Transport: guarded, parsed-once messages in, one JSON line per sent message out. As with
 * the SDK's StdioServerTransport, the end or close of stdin closes it, a failing stdout reports and closes it, `send`
 * waits for a drain, a second close does nothing, a send after close rejects.
 */
export class HostStdioTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: Transport["onmessage"]
  private started = false
  private closed = false
  private readonly input: Readable
  private readonly output: Writable
  private readonly guard: Writable

  /** Speaks to the host over `input` and `output`; a line over `maxBytes` is answered, not read. */
  constructor(input: Readable, output: Writable, maxBytes: number = MAX_FRAME_BYTES) {
    this.input = input
    this.output = output
    this.guard = frameGuard({ output, maxBytes, check: checkFrame, deliver: this.deliver })
  }

  private readonly deliver = (message: JSONRPCMessage) => {
    if (this.closed) return
    try {
      this.onmessage?.(message)
    } catch (error) {
      this.onerror?.(toError(error))
    }
  }
  private readonly onData = (chunk: Buffer | string) => {
    if (!this.closed) this.guard.write(chunk)
  }
  private readonly onInputError = (error: Error) => this.onerror?.(error)
  private readonly onInputEnd = () => void this.close()
  // Stays attached after close, so that a late write failure is swallowed rather than thrown.
  private readonly onOutputError = (error: Error) => {
    if (this.closed) return
    this.onerror?.(error)
    void this.close()
  }

  /** Starts reading the host's stdin; a second start rejects, as the SDK's transport does. */
  async start(): Promise<void> {
    if (this.started) throw new Error("HostStdioTransport already started")
    this.started = true
    if (this.input.readableEnded || this.input.destroyed) setImmediate(this.onInputEnd)
    this.input.on("data", this.onData)
    this.input.on("error", this.onInputError)
    this.input.on("end", this.onInputEnd)
    this.input.on("close", this.onInputEnd)
    this.output.on("error", this.onOutputError)
  }

  /** Stops reading stdin and reports the close once; later calls do nothing. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.input.off("data", this.onData)
    this.input.off("error", this.onInputError)
    this.input.off("end", this.onInputEnd)
    this.input.off("close", this.onInputEnd)
    if (this.input.listenerCount("data") === 0) this.input.pause()
    this.onclose?.()
  }

  /**
   * Writes one message as a JSON line; resolves once written (after a drain when the output is full), rejects after
   * close.
   */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error("HostStdioTransport is closed"))
    const output = this.output
    return new Promise((resolve, reject) => {
      // The first of: written at once, drained, or failed.
      const settle = (error?: Error) => {
        output.off("error", settle)
        output.off("drain", settle)
        if (error === undefined) resolve()
        else reject(error)
      }
      output.once("error", settle)
      if (output.write(serializeMessage(message))) settle()
      else output.once("drain", settle)
    })
  }
}
