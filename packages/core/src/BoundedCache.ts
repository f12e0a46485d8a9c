/**
 * A cache bounded by bytes, for values computed from names that a host or a server sends: an
 * attacker who sends many distinct (or very long) names must not be able to fill memory.
 *
 * The bound is on an estimate of the memory held: a fixed overhead per entry plus the entry's
 * own cost (for a string, 2 bytes per UTF-16 code unit). A key longer than `maxKeyLength` is never
 * cached (its value is computed every time). When an entry would cross the bound, the cache is
 * emptied first: simple, and a flood of distinct names costs at most one bound of memory.
 */

/** A fixed estimate of what one Map entry costs beyond its key and value. */
const ENTRY_OVERHEAD = 64

/** A byte-bounded cache from strings to values. */
export interface BoundedCache<V> {
  /** The cached value of `key`, if any. */
  readonly get: (key: string) => V | undefined
  /** Caches `value` under `key` (unless the key is too long to cache) and returns it. */
  readonly set: (key: string, value: V) => V
  /** The estimated bytes held (internal, for tests). */
  readonly bytes: () => number
  /** The number of entries (internal, for tests). */
  readonly size: () => number
}

/** Makes a cache of at most `maxBytes`; `costOf` estimates a value's bytes (default 0). */
export const makeBoundedCache = <V>(options: {
  readonly maxBytes: number
  readonly maxKeyLength: number
  readonly costOf?: (value: V) => number
}): BoundedCache<V> => {
  const map = new Map<string, V>()
  const costOf = options.costOf
  let bytes = 0
  return {
    get: (key) => map.get(key),
    set: (key, value) => {
      if (key.length > options.maxKeyLength) return value
      const cost = ENTRY_OVERHEAD + 2 * key.length + (costOf === undefined ? 0 : costOf(value))
      if (bytes + cost > options.maxBytes) {
        map.clear()
        bytes = 0
      }
      map.set(key, value)
      bytes += cost
      return value
    },
    bytes: () => bytes,
    size: () => map.size
  }
}
