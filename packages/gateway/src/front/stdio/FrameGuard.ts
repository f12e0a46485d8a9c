/**
 * A guard in front of the stdio transport: it splits stdin into lines, answers a line that is not
 * JSON with a JSON-RPC parse error (-32700) and a line over the size limit with an invalid-request
 * error (-32600), and passes only JSON lines on. The SDK's transport would drop the first silently
 * and close the session on the second; with the guard, the host gets an error and the session lives.
 * An optional `check` (the stdio front passes FrameCheck's) answers parsed lines it refuses.
 */
import { JsonText } from "@interlock/core"
import { Transform, type TransformCallback, type Writable } from "node:stream"
import { errorLine } from "./FrameCheck.ts"

/** The largest line the guard passes on (bytes). */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024

/** The error lines that answer a parsed line, or undefined to pass it on. */
export type LineCheck = (value: unknown) => ReadonlyArray<string> | undefined

/** A Transform from raw stdin to checked JSON lines; errors are written to `output`. */
export const frameGuard = (output: Writable, maxBytes: number = MAX_FRAME_BYTES, check?: LineCheck): Transform => {
  let pending: Array<Buffer> = []
  let size = 0
  let skipping = false
  const finishLine = (stream: Transform, line: Buffer) => {
    const text = line.toString("utf8").replace(/\r$/, "")
    if (text.trim().length === 0) return
    let value: unknown
    try {
      value = JsonText.parse(text)
    } catch {
      output.write(errorLine(null, -32700, "Parse error: the line is not JSON"))
      return
    }
    const refused = check?.(value)
    if (refused === undefined) stream.push(`${text}\n`)
    else for (const line of refused) output.write(line)
  }
  const tooLarge = () => output.write(errorLine(null, -32600, `Invalid request: a message is larger than ${maxBytes} bytes`))
  return new Transform({
    transform(this: Transform, chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      let start = 0
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, at)
        if (skipping || size + piece.length > maxBytes) tooLarge()
        else finishLine(this, Buffer.concat([...pending, piece]))
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
