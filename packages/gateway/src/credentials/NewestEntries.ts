/**
 * A map of the newest entries only: setting a key makes it the newest, and beyond `max` entries the oldest goes, so
 * that many principals (or flows) cannot fill memory.
 */

/** A map that keeps at most `max` entries, the most recently set. */
export const newestEntries = <V>(max: number) => {
  const map = new Map<string, V>()
  return {
    get: (key: string) => map.get(key),
    values: () => map.values(),
    delete: (key: string) => map.delete(key),
    set: (key: string, value: V) => {
      map.delete(key)
      map.set(key, value)
      const oldest = map.keys().next()
      if (map.size > max && oldest.done !== true) map.delete(oldest.value)
    }
  }
}
