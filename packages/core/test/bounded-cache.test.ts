/**
 * Core's byte-bounded cache in both eviction modes: `all` (emptied when an entry would cross the
 * bound, for values computed again) and `leastRecent` (one entry at a time, for state such as the
 * gateway's rate-limit buckets and verified tokens, which must not all go at once).
 */
import { assert, describe, it } from "@effect/vitest"
import { BoundedCache } from "@interlock/core"
import { Effect, Schema } from "effect"

const { keyCost, makeBoundedCache } = BoundedCache

describe("BoundedCache", () => {
  it("evict all: an entry that would cross the bound empties the cache first; a too-long key is never cached", () => {
    const cache = makeBoundedCache<number>({ maxBytes: 3 * keyCost("k0"), maxKeyLength: 4 })
    for (const index of [0, 1, 2]) cache.set(`k${index}`, index)
    assert.strictEqual(cache.size(), 3)
    cache.set("k3", 3)
    assert.strictEqual(cache.size(), 1)
    assert.strictEqual(cache.get("k3"), 3)
    assert.isUndefined(cache.get("k0"))
    assert.strictEqual(cache.set("longer", 9), 9)
    assert.isUndefined(cache.get("longer"))
  })

  it("evict leastRecent: a read keeps an entry, the least recently used one leaves, a huge one stays alone", () => {
    const cache = makeBoundedCache<number>({ maxBytes: 3 * keyCost("k0"), evict: "leastRecent" })
    for (const index of [0, 1, 2]) cache.set(`k${index}`, index)
    assert.strictEqual(cache.get("k0"), 0)
    cache.set("k3", 3)
    assert.deepStrictEqual(["k0", "k1", "k2", "k3"].map(cache.get), [0, undefined, 2, 3])
    assert.strictEqual(cache.bytes(), 3 * keyCost("k0"))
    const huge = "h".repeat(1000)
    cache.set(huge, 4)
    assert.strictEqual(cache.size(), 1)
    assert.strictEqual(cache.get(huge), 4)
    assert.strictEqual(cache.bytes(), keyCost(huge))
  })

  it.effect.prop(
    "evict leastRecent: setting a key again replaces it and its cost, and the bound holds",
    [Schema.Array(Schema.String), Schema.Int.check(Schema.isBetween({ minimum: 64, maximum: 1024 }))],
    ([keys, maxBytes]) =>
      Effect.sync(() => {
        const cache = makeBoundedCache<number>({ maxBytes, costOf: (value) => value, evict: "leastRecent" })
        keys.forEach((key, index) => {
          cache.set(key, index % 7)
          cache.set(key, index % 5)
          assert.strictEqual(cache.get(key), index % 5)
          assert.isTrue(cache.bytes() <= maxBytes || cache.size() === 1)
        })
      })
  )
})
