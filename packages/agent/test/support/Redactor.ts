/** A marked secret and an afterModelChunk redactor that catches it across delta boundaries. */
import { AgentVerdict } from "../../src/index.ts"
import type { AfterModelChunkInput } from "../../src/index.ts"

/** The marked secret: it must never reach a consumer, a transcript or a result. */
export const SECRET = "sk-live-7Q2vX9pLw4"

/** What the redactor puts in its place. */
export const MASK = "[redacted]"

/**
 * Masks every whole secret in the held-back text, and holds the text back while it ends with
 * what could be the start of one (so the next delta can complete it).
 */
export const redactor = ({ pending, final }: AfterModelChunkInput) => {
  const masked = pending.replaceAll(SECRET, MASK)
  if (!final) {
    for (let n = Math.min(SECRET.length - 1, masked.length); n > 0; n--) {
      if (masked.endsWith(SECRET.slice(0, n))) return AgentVerdict.hold
    }
  }
  return masked === pending ? AgentVerdict.continue : AgentVerdict.replace(masked)
}

/** Every piece of the secret long enough to matter (what a naive redactor would let through). */
export const secretPieces = (): Array<string> => {
  const pieces: Array<string> = []
  for (let i = 0; i + 6 <= SECRET.length; i++) pieces.push(SECRET.slice(i, i + 6))
  return pieces
}
