/**
 * Confusable skeletons for deny matching (a small part of UTS #39): Cyrillic, Greek, Armenian and Latin-extension
 * letters with a single Latin lookalike fold to it (`rеad` with a Cyrillic `е`), so a deny rule on `read_file`
 * denies its lookalikes; allow rules never use skeletons. Names fold before case folding and again after, so both
 * cases are listed (a Greek `Ν` looks like `N` but lowercases to `ν`).
 */

const LOOKALIKES: Readonly<Record<string, string>> = {
  // Cyrillic
  "а": "a",
  "е": "e",
  "о": "o",
  "р": "p",
  "с": "c",
  "у": "y",
  "х": "x",
  "ѕ": "s",
  "і": "i",
  "ј": "j",
  "һ": "h",
  "ԁ": "d",
  "ԛ": "q",
  "ԝ": "w",
  "ӏ": "l",
  "ѵ": "v",
  "ү": "y",
  "А": "A",
  "В": "B",
  "Е": "E",
  "К": "K",
  "М": "M",
  "Н": "H",
  "О": "O",
  "Р": "P",
  "С": "C",
  "Т": "T",
  "Х": "X",
  "У": "Y",
  "Ѕ": "S",
  "І": "I",
  "Ј": "J",
  "Һ": "H",
  "Ԛ": "Q",
  "Ԝ": "W",
  "Ӏ": "l",
  "Ү": "Y",
  "Ѵ": "V",
  // Greek
  "Α": "A",
  "Β": "B",
  "Ε": "E",
  "Ζ": "Z",
  "Η": "H",
  "Ι": "I",
  "Κ": "K",
  "Μ": "M",
  "Ν": "N",
  "Ο": "O",
  "Ρ": "P",
  "Τ": "T",
  "Υ": "Y",
  "Χ": "X",
  "Ϲ": "C",
  "Ϳ": "J",
  "α": "a",
  "ο": "o",
  "ρ": "p",
  "ν": "v",
  "ι": "i",
  "κ": "k",
  "υ": "u",
  "χ": "x",
  "ϲ": "c",
  "ϳ": "j",
  // Armenian
  "օ": "o",
  "ս": "u",
  "ո": "n",
  "հ": "h",
  "Օ": "O",
  "Ս": "U",
  // Latin extensions
  "ı": "i",
  "ɑ": "a",
  "ɡ": "g",
  "ȷ": "j",
  "ɩ": "i"
}

// One character class: linear.
const LOOKALIKE = new RegExp(`[${Object.keys(LOOKALIKES).join("")}]`, "gu")

/** A name's skeleton: lookalike letters folded to Latin (case kept). Returns `name` itself when none occurs. */
export const skeleton = (name: string): string => {
  LOOKALIKE.lastIndex = 0
  return LOOKALIKE.test(name) ? name.replace(LOOKALIKE, (c) => LOOKALIKES[c]) : name
}
