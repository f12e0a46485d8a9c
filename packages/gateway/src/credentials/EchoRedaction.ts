/**
 * A server that echoes a credential it was sent has it redacted: each operation gets a redaction of exactly the
 * secrets it sent (RE2 literal alternatives, linear time), applied to the server's results, reads, prompts, errors
 * and progress before core's pipeline, the audit or a host sees them.
 */
import { BoundedCache, makeTrusted, parseMatcher, ToolResult, type TransportCallOptions } from "@interlock/core"
import { Result } from "effect"
import { RE2JS } from "re2js"
import { redactResultParts } from "../governance/ContentRedaction.ts"
import { REDACTED, type Redaction, redactText } from "../governance/Redactor.ts"

const ANY = Result.getOrThrow(parseMatcher("*"))

/** The shortest secret redacted: shorter values (a flag, a digit) would mask what is no secret. */
const MIN_SECRET = 8

/**
 * The redactions already compiled, by their source: an issued token is sent with many operations until it is renewed,
 * and compiling a long token's pattern costs more than the call. Bounded by bytes, emptied at the bound.
 */
const compiled = BoundedCache.makeBoundedCache<ReadonlyArray<Redaction>>({ maxBytes: 4 * 1024 * 1024 })

/** The redaction of `secrets` (what one operation sent), none when it sent none. */
export const echoRedaction = (secrets: ReadonlyArray<string>): ReadonlyArray<Redaction> => {
  const kept = [...new Set(secrets.filter((secret) => secret.length >= MIN_SECRET))]
  if (kept.length === 0) return []
  // Longest first, so a secret that contains another is masked whole.
  const source = kept.sort((a, b) => b.length - a.length).map((secret) => RE2JS.quote(secret)).join("|")
  return compiled.get(source) ?? compiled.set(source, [{
    id: "credentials",
    match: "*",
    matcher: ANY,
    finders: [{ regex: RE2JS.compile(source), group: 0 }],
    replacement: REDACTED
  }])
}

/** A tool result with `redactions` applied to its content, structured content and `_meta`. */
export const redactToolResult = (result: ToolResult, redactions: ReadonlyArray<Redaction>): ToolResult => {
  if (redactions.length === 0) return result
  const parts = { content: result.content, structuredContent: result.structuredContent, meta: result.meta }
  const redacted = redactResultParts(parts, redactions)
  return redacted === parts ? result : makeTrusted(ToolResult, { ...result, ...redacted })
}

/** Call options whose progress messages pass `redactions`. */
export const redactProgress = (
  options: TransportCallOptions,
  redactions: ReadonlyArray<Redaction>
): TransportCallOptions => {
  const onProgress = options.onProgress
  if (onProgress === undefined || redactions.length === 0) return options
  return {
    ...options,
    onProgress: (progress) =>
      onProgress(
        progress.message === undefined ? progress : { ...progress, message: redactText(progress.message, redactions) }
      )
  }
}
