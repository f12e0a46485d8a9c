/**
 * The shape of a compiled redaction, as a plan holds it (`Plan.redactions`). Compiling the
 * config's `redact` list into these, and applying them, is governance's (governance/Redactor.ts).
 */
import type { Matcher, MatcherInput } from "@interlock/core"
import type { RE2JS } from "re2js"

/** One compiled regex: the RE2 program and the capture group whose text is masked (0: the whole match). */
export interface Finder {
  readonly regex: RE2JS
  readonly group: number
}

/** One compiled redaction. */
export interface Redaction {
  readonly id: string
  /** The matcher as configured. */
  readonly match: MatcherInput
  readonly matcher: Matcher
  readonly finders: ReadonlyArray<Finder>
  readonly replacement: string
}
