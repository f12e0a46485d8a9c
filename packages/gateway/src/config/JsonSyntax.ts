/**
 * Where a JSON syntax error is: the line and column of the parser's position (Node's message gives
 * at least the character offset), and a name for the commonest slip, a comma before `}` or `]`.
 * Nothing of the text itself is quoted, since a config may hold a literal secret.
 */

/** The line and column (1-based) of a character offset in `text`. */
export const lineColumn = (text: string, offset: number): { readonly line: number; readonly column: number } => {
  const before = text.slice(0, offset)
  const lastBreak = before.lastIndexOf("\n")
  return { line: before.split("\n").length, column: offset - lastBreak }
}

/** The offset of the first `}` or `]` that follows a comma (whitespace aside), outside strings; -1 when none. */
export const trailingCommaAt = (text: string): number => {
  let inString = false
  let afterComma = false
  for (let index = 0; index < text.length; index++) {
    const char = text[index]
    if (inString) {
      if (char === "\\") index++
      else if (char === "\"") inString = false
      continue
    }
    if (char === "\"") inString = true
    else if ((char === "}" || char === "]") && afterComma) return index
    if (!/\s/.test(char)) afterComma = char === ","
  }
  return -1
}

/**
 * ` at line L, column C` for a JSON.parse error on `text` (with what the slip is, when it is a
 * trailing comma, which V8 may report with no position at all); "" when the place is unknown.
 */
export const syntaxErrorWhere = (error: unknown, text: string): string => {
  const at = (offset: number, what: string) => {
    const { column, line } = lineColumn(text, offset)
    return ` at line ${line}, column ${column}${what}`
  }
  const comma = trailingCommaAt(text)
  if (comma >= 0) return at(comma, ": a comma before the closing bracket (JSON allows no trailing comma)")
  const match = error instanceof SyntaxError ? /position (\d+)/.exec(error.message) : null
  return match === null ? "" : at(Number(match[1]), "")
}
