/**
 * A cache bounded by an estimate of the bytes it holds (a fixed overhead per entry plus the entry's cost; 2 bytes
 * per UTF-16 unit of a string), for values computed from names that a host or a server sends: many distinct or
 * very long names must not fill memory. A key over `maxKeyLength` is never cached; `evict` says what leaves at the
 * bound.
 */

/** A fixed estimate of what one Map entry costs beyond its key and value. */
const ENTRY_OVERHEAD = 64

/** The estimated bytes of an entry's key: two per UTF-16 unit, plus a map entry's overhead. */
export const keyCost = (key: string): number => ENTRY_OVERHEAD + 2 * key.length

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

/** The options of {@link makeBoundedCache}. */
export interface BoundedCacheOptions<V> {
  readonly maxBytes: number
  /** Keys longer than this are never cached (default: no limit). */
  readonly maxKeyLength?: number | undefined
  /** A value's estimated bytes (default 0). */
  readonly costOf?: ((value: V) => number) | undefined
  /**
   * What leaves when an entry would cross the bound: `all` (the default) empties the cache first;
   * `leastRecent` evicts from the least recently used end (a read makes an entry the most recent),
   * one entry at a time, and keeps an entry larger than the bound alone.
   */
  readonly evict?: "all" | "leastRecent" | undefined
}

/** Makes a cache of at most `maxBytes`. */
export const makeBoundedCache = <V>(options: BoundedCacheOptions<V>): BoundedCache<V> =>
  options.evict === "leastRecent" ? leastRecentCache(options) : emptyingCache(options)

const emptyingCache = <V>(options: BoundedCacheOptions<V>): BoundedCache<V> => {
  const maxKeyLength = options.maxKeyLength ?? Number.POSITIVE_INFINITY
  const map = new Map<string, V>()
  const costOf = options.costOf
  let bytes = 0
  return {
    get: (key) => map.get(key),
    set: (key, value) => {
      if (key.length > maxKeyLength) return value
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

const leastRecentCache = <V>(options: BoundedCacheOptions<V>): BoundedCache<V> => {
  const maxKeyLength = options.maxKeyLength ?? Number.POSITIVE_INFINITY
  const costOf = options.costOf
  // Map iteration follows insertion order: re-inserting an entry makes it the most recent.
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
      if (key.length > maxKeyLength) return value
      remove(key)
      const bytes = keyCost(key) + (costOf === undefined ? 0 : costOf(value))
      entries.set(key, { value, bytes })
      total += bytes
      for (const oldest of entries.keys()) {
        if (total <= options.maxBytes || entries.size === 1) break
        remove(oldest)
      }
      return value
    },
    bytes: () => total,
    size: () => entries.size
  }
}
