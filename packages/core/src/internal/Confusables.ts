/**
 * Confusable skeletons for deny matching: a small part of UTS #39. Cyrillic and Greek letters
 * that look like Latin ones (`rеad` with a Cyrillic `е`) fold to those Latin letters, so a deny
 * rule on `read_file` also denies its lookalikes. Only deny matching uses skeletons: an allow
 * rule still needs the real name, so a lookalike tool is never allowed by another's rule.
 *
 * Applied to names before case folding (NFKC, ignorables removed) and again after it, so both
 * cases are listed: an uppercase Greek `Ν` looks like `N`, though it lowercases to `ν` (a `v`).
 * Not the whole UTS #39 table: only Cyrillic/Greek/Armenian/Latin-extension letters with a single
 * Latin lookalike.
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
