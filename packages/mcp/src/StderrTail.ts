/** A bounded buffer for a child's stderr: keeps the last `limit` bytes, so error messages can quote them. */

/** The last bytes a process wrote to stderr. */
export class StderrTail {
  readonly limit: number
  private chunks: Array<Buffer> = []
  private size = 0
  /** Bytes dropped from the front since the start. */
  dropped = 0

  constructor(limit: number) {
    this.limit = limit
  }

  /** Appends a chunk, dropping the oldest bytes beyond the limit. */
  push(chunk: Buffer): void {
    if (this.limit === 0) {
      this.dropped += chunk.length
      return
    }
    this.chunks.push(chunk)
    this.size += chunk.length
    while (this.size > this.limit) {
      const first = this.chunks[0]
      const excess = this.size - this.limit
      if (first.length <= excess) {
        this.chunks.shift()
        this.size -= first.length
        this.dropped += first.length
      } else {
        this.chunks[0] = first.subarray(excess)
        this.size -= excess
        this.dropped += excess
      }
    }
  }

  /** The kept text (UTF-8, trimmed), at most `max` characters from the end. */
  text(max = this.limit): string {
    const text = Buffer.concat(this.chunks).toString("utf8").trim()
    return text.length > max ? `...${text.slice(text.length - max)}` : text
  }
}
