/**
 * Redaction of an HTML document (an MCP Apps `ui://` resource) that never breaks it. The regexes run over the
 * whole text, as for any text, but a match replaces only content (text, attribute values, script and style bodies,
 * comments: HtmlShape.ts), never markup. A match that covers a tag's or an attribute's name cannot be masked: the
 * whole document is withheld (fail closed) and a fixed page stands in for it.
 */
import { isUiUri } from "./AppUris.ts"
import { htmlParts, Part } from "./HtmlShape.ts"
import { type Finder, ranges, type Redaction } from "./Redactor.ts"

/** What stands in for a document whose markup a redaction matched. */
export const WITHHELD_HTML =
  "<!doctype html><html><head><meta charset=\"utf-8\"></head><body><p>Interlock withheld this page: a redaction " +
  "matched its markup.</p></body></html>"

/** The text the masked runs get, when a replacement has nothing left once made safe. */
const FALLBACK = "REDACTED"

const TAG_SYNTAX = new Set(["<", ">", "/", "=", "!", "?", "-", "\"", "'", " ", "\t", "\n", "\f", "\r"])
const RAW_SYNTAX = new Set(["\"", "'", "`", "\\", "\n", "\r", "\u2028", "\u2029"])

/** A replacement that can open no markup, end no string and break no line: those characters are dropped. */
export const safeReplacement = (replacement: string): string => {
  let out = ""
  for (const ch of replacement) if (!TAG_SYNTAX.has(ch) && !RAW_SYNTAX.has(ch) && ch !== "&" && ch !== "`") out += ch
  return out.length > 0 ? out : FALLBACK
}

const startsWithLetter = (text: string) => ((text.charCodeAt(0) | 32) >= 97 && (text.charCodeAt(0) | 32) <= 122)

/**
 * Masks one finder's matches in `html`, or undefined when a match covers markup that is not syntax. Within a
 * match, tag syntax (`<`, `>`, `/`, `=`, `!`, `?`, `-`, quotes, white space) stays, as do a script or style body's
 * quotes, backticks, backslashes and line breaks (its strings and line comments stay closed); each run of masked
 * characters between them becomes one replacement.
 */
const maskHtml = (html: string, finder: Finder, replacement: string): string | undefined => {
  const found = ranges(html, finder)
  if (found.length === 0) return html
  const parts = htmlParts(html)
  let out = ""
  let at = 0
  for (const [start, stop] of found) {
    out += html.slice(at, start)
    let masking = false
    for (let p = start; p < stop; p++) {
      const ch = html[p]
      const part = parts[p]
      const kept = part === Part.Markup ? TAG_SYNTAX.has(ch) : part === Part.Raw && RAW_SYNTAX.has(ch)
      if (part === Part.Markup && !kept) return undefined
      if (kept) {
        out += ch
        masking = false
      } else if (!masking) {
        // A "<" of text followed by a letter would open a tag: a space keeps it text.
        if (part === Part.Text && out.endsWith("<") && startsWithLetter(replacement)) out += " "
        out += replacement
        masking = true
      }
    }
    at = stop
  }
  return out + html.slice(at)
}

/** Applies redactions to an HTML document, keeping it well-formed; {@link WITHHELD_HTML} when that cannot be done. */
export const redactHtml = (html: string, redactions: ReadonlyArray<Redaction>): string => {
  let out = html
  for (const redaction of redactions) {
    const replacement = safeReplacement(redaction.replacement)
    for (const finder of redaction.finders) {
      const next = maskHtml(out, finder, replacement)
      if (next === undefined) return WITHHELD_HTML
      out = next
    }
  }
  return out
}

/**
 * Whether a resource entry holds HTML: its MIME type is text/html (MCP Apps' `text/html;profile=mcp-app` included), or
 * it is a `ui://` resource.
 */
export const isHtmlEntry = (mimeType: unknown, uri: unknown): boolean =>
  (typeof mimeType === "string" && mimeType.trim().toLowerCase().startsWith("text/html")) ||
  (typeof uri === "string" && isUiUri(uri))
