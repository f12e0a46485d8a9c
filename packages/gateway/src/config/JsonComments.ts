/**
 * Comments in a JSON config (`interlock.config.jsonc`, or `.json`): `//` to the end of the line and
 * `/* ... *\/`, outside strings. They are blanked, not removed (newlines kept), so the JSON parser's
 * line and column still point into the file as written. One pass, linear in the text.
 */

/** The text with its comments blanked, or undefined when a block comment is never closed. */
export const blankComments = (text: string): string | undefined => {
  let out = ""
  let i = 0
  while (i < text.length) {
    const char = text[i]
    if (char === "\"") {
      const start = i++
      while (i < text.length && text[i] !== "\"") i += text[i] === "\\" ? 2 : 1
      out += text.slice(start, ++i)
    } else if (char === "/" && text[i + 1] === "/") {
      const end = text.indexOf("\n", i)
      const stop = end === -1 ? text.length : end
      out += " ".repeat(stop - i)
      i = stop
    } else if (char === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2)
      if (end === -1) return undefined
      out += text.slice(i, end + 2).replace(/[^\n]/g, " ")
      i = end + 2
    } else {
      out += char
      i++
    }
  }
  return out
}
