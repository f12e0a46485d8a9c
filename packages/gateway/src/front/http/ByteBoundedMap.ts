/**
 * A map whose entries are bounded by an estimate of the bytes they hold, not by their count: past
 * the bound it evicts the least recently used entries, one at a time, never all at once. For caches
 * keyed by values a host sends, where a count cap still lets a few huge keys fill the heap.
 */

/** A string-keyed map bounded by bytes, in least-recently-used order. */
export interface ByteBoundedMap<V> {
  /** The value under a key; reading it makes it the most recently used. */
  readonly get: (key: string) => V | undefined
  /** Stores a value as the most recently used, then evicts from the least recently used end while over the bound. */
  readonly set: (key: string, value: V) => void
  /** How many entries it holds. */
  readonly size: () => number
  /** The estimated bytes it holds. */
  readonly bytes: () => number
}

/** The estimated bytes of a string key: two per UTF-16 unit, plus a map entry's overhead. */
export const keyBytes = (key: string): number => 2 * key.length + 64

/** A map of at most `maxBytes` (estimated by `sizeOf`); an entry larger than the bound alone is still kept, alone. */
export const byteBoundedMap = <V>(maxBytes: number, sizeOf: (key: string, value: V) => number): ByteBoundedMap<V> => {
  const entries = new Map<string, { readonly value: V; readonly bytes: number }>()
  let total = 0
  const remove = (key: string) => {
    const entry = entries.get(key)
    if (entry === undefined) return
    entries.delete(key)
    total -= entry.bytes
  }
  return {
    get: (key) => {
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      entries.delete(key)
      entries.set(key, entry)
      return entry.value
    },
    set: (key, value) => {
      remove(key)
      const bytes = sizeOf(key, value)
      entries.set(key, { value, bytes })
      total += bytes
      for (const oldest of entries.keys()) {
        if (total <= maxBytes || entries.size === 1) break
        remove(oldest)
      }
    },
    size: () => entries.size,
    bytes: () => total
  }
}
