/**
 * Confusable skeletons for deny matching: a small part of UTS #39. Cyrillic and Greek letters
 * that look like Latin ones (`rеad` with a Cyrillic `е`) fold to those Latin letters, so a deny
 * rule on `read_file` also denies its lookalikes. Only deny matching uses skeletons: an allow
 * rule still needs the real name, so a lookalike tool is never allowed by another's rule.
 *
 * Applied to canonical names (already NFKC and case-folded, so lowercase). Not the whole UTS #39
 * table: only lowercase Cyrillic/Greek/Latin-extension letters with a single Latin lookalike.
 */

const LOOKALIKES: Readonly<Record<string, string>> = {
  // Cyrillic
  "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "ѕ": "s", "і": "i",
  "ј": "j", "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ѵ": "v", "ү": "y",
  // Greek
  "α": "a", "ο": "o", "ρ": "p", "ν": "v", "ι": "i", "κ": "k", "υ": "u", "χ": "x", "ϲ": "c", "ϳ": "j",
  // Latin extensions
  "ı": "i", "ɑ": "a", "ɡ": "g", "ȷ": "j", "ɩ": "i"
}

// One character class: linear.
const LOOKALIKE = new RegExp(`[${Object.keys(LOOKALIKES).join("")}]`, "gu")

/** The skeleton of a canonical name: lookalike letters folded to Latin. Returns `canonical` itself when none occurs. */
export const skeleton = (canonical: string): string => {
  LOOKALIKE.lastIndex = 0
  return LOOKALIKE.test(canonical) ? canonical.replace(LOOKALIKE, (c) => LOOKALIKES[c]) : canonical
}
