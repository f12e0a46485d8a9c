/**
 * The nearest known key to a mistyped one, for "did you mean" hints: the same key in another case,
 * else the closest by optimal string alignment distance (edits, with a swap of two neighbours as
 * one edit), within 1 edit for keys up to 4 characters and 2 for longer ones.
 */

/** Optimal string alignment distance between two short strings (keys; quadratic in their length). */
export const editDistance = (a: string, b: string): number => {
  const rows: Array<Array<number>> = []
  for (let i = 0; i <= a.length; i++) {
    rows.push([i, ...Array.from({ length: b.length }, (_, j) => (i === 0 ? j + 1 : 0))])
  }
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, rows[i - 2][j - 2] + 1)
      }
      rows[i][j] = best
    }
  }
  return rows[a.length][b.length]
}

/** The longest key compared; a longer one gets no suggestion (the distance is quadratic). */
export const MAX_KEY_LENGTH = 64

/** The known key nearest to `key`, or undefined when none is close enough. */
export const nearestKey = (key: string, known: Iterable<string>): string | undefined => {
  if (key.length > MAX_KEY_LENGTH) return undefined
  const candidates = [...known].filter((name) => name !== key && name.length <= MAX_KEY_LENGTH)
  const folded = candidates.find((name) => name.toLowerCase() === key.toLowerCase())
  if (folded !== undefined) return folded
  const limit = key.length <= 4 ? 1 : 2
  let best: { readonly name: string; readonly distance: number } | undefined
  for (const name of candidates) {
    const distance = editDistance(key, name)
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name, distance }
  }
  return best?.name
}
