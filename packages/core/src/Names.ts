/**
 * Loose names: how Interlock compares server, tool, prompt and resource names.
 *
 * Unicode NFKC, case-folded, with `-`, `.` and `_` equivalent, so that a rule on `fs/read_file`
 * also covers `FS/Read-File` and a deny rule cannot be dodged by spelling a name differently.
 */

const SEPARATORS = /[-._]/g
const cache = new Map<string, string>()
const CACHE_LIMIT = 10_000

const foldOnce = (name: string): string =>
  // toUpperCase before toLowerCase gives full case folding for the characters where the two
  // differ (for example "ß" -> "ss", "ſ" -> "s"); NFKC on both sides keeps the result stable.
  name.normalize("NFKC").toUpperCase().toLowerCase().normalize("NFKC").replace(SEPARATORS, "_")

const fold = (name: string): string => {
  let current = name
  // A few characters need a second pass to reach a fixed point; four is far more than any needs.
  for (let i = 0; i < 4; i++) {
    const next = foldOnce(current)
    if (next === current) return next
    current = next
  }
  return current
}

/** The canonical (loose) form of a name. Idempotent: `canonicalName(canonicalName(x)) === canonicalName(x)`. */
export const canonicalName = (name: string): string => {
  const hit = cache.get(name)
  if (hit !== undefined) return hit
  const folded = fold(name)
  if (cache.size >= CACHE_LIMIT) cache.clear()
  cache.set(name, folded)
  return folded
}

/** Whether two names are the same under loose comparison. */
export const sameName = (a: string, b: string): boolean => a === b || canonicalName(a) === canonicalName(b)
