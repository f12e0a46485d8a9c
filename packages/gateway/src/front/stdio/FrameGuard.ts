/**
 * The guard that reads a stdio host's frames (`frameGuard`): it splits stdin into lines, reads each once with JsonText
 * (every key as the text spells it), answers a line that is not JSON with a parse error (-32700) and one over the size
 * limit with an invalid request (-32600), and hands what its `check` makes of every other line to `deliver`, in order.
 * HostStdioTransport passes FrameCheck's check, so the SDK never reads the host's text itself.
 */
import { JsonText } from "@interlock/core"
import { Result } from "effect"
import { Writable } from "node:stream"
import { errorLine } from "./FrameCheck.ts"

/** The largest line the guard reads (bytes). */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024

/** What a check makes of a parsed line: the value to deliver, or the error lines that answer it. */
export type LineCheck<A> = (value: unknown) => Result.Result<A, ReadonlyArray<string>>

/** Where a guard writes its answers, what it checks, and where it delivers what passed. */
export interface FrameGuardOptions<A> {
  /** The host's output: error lines are written here. */
  readonly output: Writable
  /** Turns each parsed line into what is delivered, or refuses it with error lines. */
  readonly check: LineCheck<A>
  /** Receives each line that passed the check, as the check made it. */
  readonly deliver: (value: A) => void
  /** The largest line read (bytes; MAX_FRAME_BYTES unless set); a longer one is answered with -32600. */
  readonly maxBytes?: number
}

/**
 * A Writable taking raw stdin chunks; each JSON line that passes the check is delivered, the rest answered on `output`.
 * The SDK's transport would drop a line that is not JSON silently and close the session on one too long; with the
 * guard, the host gets an error and the session lives.
 */
export const frameGuard = <A>(
  { check, deliver, maxBytes = MAX_FRAME_BYTES, output }: FrameGuardOptions<A>
): Writable => {
  let pending: Array<Buffer> = []
  let size = 0
  let skipping = false
  const finishLine = (line: Buffer) => {
    const text = line.toString("utf8").replace(/\r$/, "")
    if (text.trim().length === 0) return
    let value: unknown
    try {
      value = JsonText.parse(text)
    } catch {
      output.write(errorLine(null, -32700, "Parse error: the line is not JSON"))
      return
    }
    const checked = check(value)
    if (Result.isSuccess(checked)) deliver(checked.success)
    else for (const line of checked.failure) output.write(line)
  }
  const tooLarge = () =>
    output.write(errorLine(null, -32600, `Invalid request: a message is larger than ${maxBytes} bytes`))
  return new Writable({
    write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void) {
      let start = 0
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, at)
        if (skipping || size + piece.length > maxBytes) tooLarge()
        else finishLine(Buffer.concat([...pending, piece]))
        pending = []
        size = 0
        skipping = false
        start = at + 1
      }
      const rest = chunk.subarray(start)
      if (!skipping && rest.length > 0) {
        if (size + rest.length > maxBytes) {
          // Over the limit before its end: drop what we have and skip to the next newline.
          skipping = true
          pending = []
          size = 0
        } else {
          pending.push(Buffer.from(rest))
          size += rest.length
        }
      }
      done()
    }
  })
}
