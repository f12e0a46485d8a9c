/**
 * The shape of an HTML document, for redacting it without breaking it: one linear pass (no regex) that tells, for
 * each character, whether it is markup (tags, attribute names, comment and doctype syntax) or content (text, an
 * attribute's value, a script or style body, a comment's body). It follows the HTML tokenizer's states closely
 * enough for that question; it is not a validator.
 */

/** What a character of a document is part of. */
export const Part = { Markup: 0, Text: 1, Attribute: 2, Raw: 3, Comment: 4 } as const

/** One of {@link Part}'s values. */
export type Part = (typeof Part)[keyof typeof Part]

/** Elements whose body is raw text, ended only by their own end tag. */
const RAW = new Set(["script", "style", "xmp", "iframe", "noembed", "noframes"])
/** Elements whose body is text (entities apply), ended only by their own end tag. */
const RCDATA = new Set(["textarea", "title"])

const isAlpha = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 12 || c === 13

/** Whether `html` at `at` starts the end tag `</name` (ASCII case-insensitive), followed by a space, `/` or `>`. */
const endTagAt = (html: string, at: number, name: string): boolean => {
  for (let k = 0; k < name.length; k++) {
    const c = html.charCodeAt(at + 2 + k)
    if ((c | 32) !== name.charCodeAt(k)) return false
  }
  const after = html.charCodeAt(at + 2 + name.length)
  return Number.isNaN(after) || isSpace(after) || after === 47 || after === 62
}

/** Where the body of a raw-text or RCDATA element that starts at `from` ends: at its end tag, or the document's end. */
const bodyEnd = (html: string, from: number, name: string): number => {
  for (let at = html.indexOf("</", from); at >= 0; at = html.indexOf("</", at + 2)) {
    if (endTagAt(html, at, name)) return at
  }
  return html.length
}

/** Scans a start tag from `lt` (its `<`), marking attribute values; returns where the tag ends and the tag's name. */
const startTag = (html: string, lt: number, parts: Uint8Array): { readonly end: number; readonly name: string } => {
  const n = html.length
  let j = lt + 1
  while (j < n && !isSpace(html.charCodeAt(j)) && html[j] !== "/" && html[j] !== ">") j++
  const name = html.slice(lt + 1, j).toLowerCase()
  while (j < n) {
    while (j < n && (isSpace(html.charCodeAt(j)) || html[j] === "/")) j++
    if (j >= n) break
    if (html[j] === ">") return { end: j + 1, name }
    // An attribute's name (a leading "=" belongs to it, as the tokenizer has it).
    j++
    while (j < n && !isSpace(html.charCodeAt(j)) && html[j] !== "/" && html[j] !== ">" && html[j] !== "=") j++
    let k = j
    while (k < n && isSpace(html.charCodeAt(k))) k++
    if (html[k] !== "=") continue
    j = k + 1
    while (j < n && isSpace(html.charCodeAt(j))) j++
    const quote = html[j]
    if (quote === "\"" || quote === "'") {
      const close = html.indexOf(quote, j + 1)
      const stop = close < 0 ? n : close
      parts.fill(Part.Attribute, j + 1, stop)
      j = stop + 1
    } else {
      const from = j
      while (j < n && !isSpace(html.charCodeAt(j)) && html[j] !== ">") j++
      parts.fill(Part.Attribute, from, j)
    }
  }
  return { end: n, name }
}

/** The part of each character of `html` (one pass, linear in its length). */
export const htmlParts = (html: string): Uint8Array => {
  const n = html.length
  const parts = new Uint8Array(n)
  let i = 0
  while (i < n) {
    const lt = html.indexOf("<", i)
    if (lt < 0) {
      parts.fill(Part.Text, i, n)
      break
    }
    parts.fill(Part.Text, i, lt)
    const c = html.charCodeAt(lt + 1)
    if (html.startsWith("<!--", lt)) {
      const close = html.indexOf("-->", lt + 4)
      const stop = close < 0 ? n : close
      parts.fill(Part.Comment, lt + 4, stop)
      i = close < 0 ? n : close + 3
    } else if (c === 33 /* ! */ || c === 63 /* ? */ || (c === 47 /* / */ && isAlpha(html.charCodeAt(lt + 2)))) {
      // A doctype, a bogus comment or an end tag: markup up to its ">".
      const gt = html.indexOf(">", lt)
      i = gt < 0 ? n : gt + 1
    } else if (isAlpha(c)) {
      const tag = startTag(html, lt, parts)
      i = tag.end
      if (RAW.has(tag.name) || RCDATA.has(tag.name)) {
        const stop = bodyEnd(html, i, tag.name)
        parts.fill(RAW.has(tag.name) ? Part.Raw : Part.Text, i, stop)
        i = stop
      }
    } else {
      // A "<" that opens nothing is text.
      parts[lt] = Part.Text
      i = lt + 1
    }
  }
  return parts
}
