/**
 * Redaction of a stream of text in bounded memory (the `interlock redact` filter). Once more than two windows are
 * held, all but the last window is redacted in the context of the whole buffer and written. The cut never falls
 * inside a match (it moves back to the match's start), so a secret of up to one window that straddles two chunks
 * is still found whole; a longer one only when it comes in one round.
 */
import { type Redaction, redactPieces } from "./Redactor.ts"

/** The tail window the stream keeps, in UTF-16 units: the longest match it guarantees to find across chunks. */
export const WINDOW = 64 * 1024

/** A streaming redactor: `push` takes the next chunk and returns what may be written now; `end` returns the rest. */
export interface StreamRedactor {
  readonly push: (chunk: string) => string
  readonly end: () => string
}

/** Where the text before `cut` may be written: `cut` moved back to the start of any whole-regex match that spans it. */
export const safeCut = (text: string, cut: number, redactions: ReadonlyArray<Redaction>): number => {
  let at = cut
  for (let moved = true; moved;) {
    moved = false
    for (const redaction of redactions) {
      for (const finder of redaction.finders) {
        const matcher = finder.regex.matcher(text)
        while (matcher.find()) {
          const start = matcher.start()
          if (start >= at) break
          if (matcher.end() > at) {
            at = start
            moved = true
            break
          }
        }
      }
    }
  }
  return at
}

/** A streaming redactor over `redactions`, keeping a tail of `window` units (default {@link WINDOW}). */
export const streamRedactor = (redactions: ReadonlyArray<Redaction>, window: number = WINDOW): StreamRedactor => {
  let buffer = ""
  return {
    push: (chunk) => {
      buffer += chunk
      if (buffer.length <= 2 * window) return ""
      // A match that spans the whole buffer is waited for up to four windows, then cut anyway (memory stays bounded).
      const safe = safeCut(buffer, buffer.length - window, redactions)
      const cut = safe > 0 ? safe : buffer.length > 4 * window ? buffer.length - window : 0
      if (cut === 0) return ""
      const [head] = redactPieces([buffer.slice(0, cut), buffer.slice(cut)], redactions)
      buffer = buffer.slice(cut)
      return head
    },
    end: () => {
      const [rest] = redactPieces([buffer], redactions)
      buffer = ""
      return rest
    }
  }
}
