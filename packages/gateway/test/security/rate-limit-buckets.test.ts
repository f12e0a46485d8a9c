/**
 * Attacks on the rate limiter's memory: buckets are keyed by principal and tool, so a flood of
 * distinct keys must neither fill the heap nor reset the limit of a principal that used up its
 * budget (the old limiter emptied every bucket at 100k keys). Time stands still under TestClock.
 */
import { assert, describe, it } from "@effect/vitest"
import { BoundedCache, HookContext, Principal, ToolCall } from "@interlock/core"
import { Effect, Schema } from "effect"
import * as RateLimiter from "effect/persistence/RateLimiter"
import { TestClock } from "effect/testing"
import { MAX_BUCKET_BYTES, rateLimitHook } from "../../src/governance/RateLimiter.ts"

// The buckets' map: core's byte-bounded cache, evicting the least recently used entries.
const { keyCost: keyBytes } = BoundedCache
const byteBoundedMap = <V>(maxBytes: number) => BoundedCache.makeBoundedCache<V>({ maxBytes, evict: "leastRecent" })

const ctx = (principal: string) =>
  new HookContext({ client: "gateway", serverId: "s", assigns: {}, principal: new Principal({ id: principal }) })
const call = (name: string) => new ToolCall({ serverId: "s", name, args: {}, callId: "1" })

/** Runs the hook once; the verdict's tag. */
const verdictOf = (hook: ReturnType<typeof rateLimitHook>, name: string, principal: string) =>
  Effect.map(hook(call(name), ctx(principal)) as Effect.Effect<{ readonly _tag: string }>, (verdict) => verdict._tag)

describe("rate limit buckets under a flood of distinct keys", () => {
  it.effect(
    "a principal that used up its budget stays limited while 150k other keys come and go",
    () =>
      Effect.gen(function*() {
        const hook = rateLimitHook({ perMinute: 1, burst: 1 })
        assert.strictEqual(yield* verdictOf(hook, "write", "mallory"), "Continue")
        for (let index = 0; index < 150_000; index++) {
          yield* verdictOf(hook, `tool-${index}`, "flood")
          // Every few thousand keys the attacker tries again; it must stay denied throughout.
          if (index % 5_000 === 0) {
            assert.strictEqual(yield* verdictOf(hook, "write", "mallory"), "Deny", `after ${index} keys`)
          }
        }
        assert.strictEqual(yield* verdictOf(hook, "write", "mallory"), "Deny")
      }),
    60_000
  )

  it.effect("large distinct keys keep the buckets within their byte bound", () =>
    Effect.gen(function*() {
      // 200 keys of 64 KiB would hold 25 MiB: the map keeps the newest that fit in 1 MiB.
      const maxBytes = 1024 * 1024
      const map = byteBoundedMap<number>(maxBytes)
      const key = (index: number) => `${index}-${"n".repeat(64 * 1024)}`
      for (let index = 0; index < 200; index++) map.set(key(index), index)
      assert.isAtMost(map.bytes(), maxBytes)
      assert.strictEqual(map.size(), Math.floor(maxBytes / keyBytes(key(100))))
      assert.strictEqual(map.get(key(199)), 199)
      assert.isUndefined(map.get(key(0)))
      // The hook under the default bound answers such a flood, and the next key still gets its own budget.
      const hook = rateLimitHook({ perMinute: 1, burst: 1 })
      for (let index = 0; index < 200; index++) {
        assert.strictEqual(yield* verdictOf(hook, key(index), "flood"), "Continue")
      }
      assert.strictEqual(yield* verdictOf(hook, key(199), "flood"), "Deny")
      assert.isAbove(MAX_BUCKET_BYTES, 200 * keyBytes(key(0)))
    }))

  it.effect.prop(
    "a byte-bounded map stays within its bound, keeps the newest entry and evicts only least recently used ones",
    [
      Schema.Array(Schema.Struct({ key: Schema.String, touch: Schema.Boolean })),
      Schema.Int.check(Schema.isBetween({ minimum: 64, maximum: 4096 }))
    ],
    ([steps, maxBytes]) =>
      Effect.sync(() => {
        const map = byteBoundedMap<number>(maxBytes)
        const order: Array<string> = []
        steps.forEach(({ key, touch }, index) => {
          if (touch && map.get(key) !== undefined) order.splice(order.indexOf(key), 1)
          else {
            if (order.includes(key)) order.splice(order.indexOf(key), 1)
            map.set(key, index)
          }
          if (!order.includes(key) && map.get(key) !== undefined) order.push(key)
          // The model: drop from the least recently used end while over the bound (never the last one).
          let total = order.reduce((sum, kept) => sum + keyBytes(kept), 0)
          while (total > maxBytes && order.length > 1) total -= keyBytes(order.shift() as string)
          assert.isTrue(map.bytes() <= maxBytes || map.size() === 1)
          assert.strictEqual(map.size(), order.length)
          assert.strictEqual(map.bytes(), total)
        })
        for (const key of order) assert.isDefined(map.get(key))
      })
  )
})

describe("why the limiter keeps its own buckets, not effect/persistence's in-memory store", () => {
  it.effect(
    "a flood of distinct keys: our bound drops the flood's first key, Effect's memory store still holds it (it " +
      "never forgets a key)",
    () =>
      Effect.gen(function*() {
        // The same limit both ways: one call per minute, a burst of one.
        const limiter = yield* RateLimiter.make.pipe(Effect.provide(RateLimiter.layerStoreMemory))
        const effectVerdict = (key: string) =>
          limiter.consume({ algorithm: "token-bucket", limit: 1, window: "1 minute", key }).pipe(
            Effect.as("Continue"),
            Effect.catch(() => Effect.succeed("Deny"))
          )
        const ours = rateLimitHook({ perMinute: 1, burst: 1 }, 256 * 1024)
        const flood = 20_000
        for (let index = 0; index < flood; index++) {
          assert.strictEqual(yield* verdictOf(ours, `tool-${index}`, "flood"), "Continue")
          assert.strictEqual(yield* effectVerdict(`flood\u0000s\u0000tool-${index}`), "Continue")
        }
        // Time stands still: a key still held is still spent. Ours forgot the first keys (bounded);
        // Effect's store remembers all 20k, and would remember 20 million.
        assert.strictEqual(yield* verdictOf(ours, "tool-0", "flood"), "Continue")
        assert.strictEqual(yield* effectVerdict("flood\u0000s\u0000tool-0"), "Deny")
        // Both keep the newest keys' limits.
        assert.strictEqual(yield* verdictOf(ours, `tool-${flood - 1}`, "flood"), "Deny")
        assert.strictEqual(yield* effectVerdict(`flood\u0000s\u0000tool-${flood - 1}`), "Deny")
      }),
    60_000
  )

  it.effect.prop(
    "within the bound, the two give the same verdicts: the same token bucket (burst B at P a minute is Effect's " +
      "limit B over B * 60s / P)",
    [
      Schema.Literals([1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60]),
      Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 5 })),
      Schema.Array(
        Schema.Struct({
          waitMs: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 40_000 })),
          tool: Schema.Literals(["a", "b"])
        })
      )
    ],
    ([perMinute, burst, steps]) =>
      Effect.gen(function*() {
        const limiter = yield* RateLimiter.make.pipe(Effect.provide(RateLimiter.layerStoreMemory))
        const ours = rateLimitHook({ perMinute, burst })
        for (const { tool, waitMs } of steps) {
          yield* TestClock.adjust(waitMs)
          const theirs = yield* limiter.consume({
            algorithm: "token-bucket",
            limit: burst,
            window: (burst * 60_000) / perMinute,
            key: tool
          }).pipe(
            Effect.as("Continue"),
            Effect.catch(() => Effect.succeed("Deny"))
          )
          assert.strictEqual(yield* verdictOf(ours, tool, "p"), theirs)
        }
      })
  )
})
