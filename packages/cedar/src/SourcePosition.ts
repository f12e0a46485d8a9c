/** Positions in a policy file: Cedar reports byte offsets into UTF-8 text; people read line:column. Pure. */

/** The 1-based line and column (in code points) of a UTF-8 byte `offset` into `text`. */
export const lineColumn = (text: string, offset: number): { readonly line: number; readonly column: number } => {
  const before = Buffer.from(text, "utf8").subarray(0, Math.max(0, offset)).toString("utf8")
  const lines = before.split("\n")
  return { line: lines.length, column: Array.from(lines[lines.length - 1]).length + 1 }
}

/** The UTF-8 byte length of `text`. */
export const byteLength = (text: string): number => Buffer.byteLength(text, "utf8")
