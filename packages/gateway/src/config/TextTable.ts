/**
 * Plain-text tables for the CLI: columns padded to their widest cell (capped, a longer cell is cut
 * with "…"), the last column left as it is. Control characters in a cell (ANSI escapes, newlines)
 * are shown escaped, so a value from a call (a tool name, a principal) cannot drive the terminal.
 */

/** Column options: alignment, and the widest a cell may be before it is cut. */
export interface Column {
  readonly align?: "left" | "right"
  readonly max?: number
}

/** The default cap on a column's width. */
export const MAX_CELL = 48

// C0 controls, DEL and C1 controls (which include the CSI that starts an ANSI sequence).
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is its purpose
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g

/** A cell as printed: control characters escaped (`\x1b`, `\n`). */
export const cellText = (value: string): string =>
  value.replace(
    CONTROL,
    (char) => char === "\n" ? "\\n" : char === "\t" ? "\\t" : `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`
  )

const cut = (
  text: string,
  max: number
): string => (text.length <= max ? text : `${text.slice(0, Math.max(1, max - 1))}…`)

/** The width of each column over `rows` (cells already escaped), each within its cap; at least `floor`. */
export const columnWidths = (
  rows: ReadonlyArray<ReadonlyArray<string>>,
  columns: ReadonlyArray<Column> = [],
  floor: ReadonlyArray<number> = []
): ReadonlyArray<number> => {
  const count = Math.max(0, ...rows.map((row) => row.length))
  return Array.from({ length: count }, (_, i) => {
    const max = columns[i]?.max ?? MAX_CELL
    return Math.max(floor[i] ?? 0, ...rows.map((row) => Math.min(max, cellText(row[i] ?? "").length)))
  })
}

/** One row as a line: every column but the last padded to `widths`, two spaces apart, trailing spaces trimmed. */
export const formatLine = (
  row: ReadonlyArray<string>,
  widths: ReadonlyArray<number>,
  columns: ReadonlyArray<Column> = []
): string =>
  row.map((value, i) => {
    const text = cellText(value)
    if (i === row.length - 1 && columns[i]?.align !== "right") return text
    const shown = cut(text, widths[i] ?? text.length)
    return columns[i]?.align === "right" ? shown.padStart(widths[i] ?? 0) : shown.padEnd(widths[i] ?? 0)
  }).join("  ").trimEnd()

/** Rows as aligned lines (the first row is usually the header). */
export const formatTable = (
  rows: ReadonlyArray<ReadonlyArray<string>>,
  columns: ReadonlyArray<Column> = []
): ReadonlyArray<string> => {
  const widths = columnWidths(rows, columns)
  return rows.map((row) => formatLine(row, widths, columns))
}
