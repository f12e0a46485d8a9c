/**
 * Attacks on the rate limiter's memory: buckets are keyed by principal and tool, so a flood of
 * distinct keys must neither fill the heap nor reset the limit of a principal that used up its
 * budget (the old limiter emptied every bucket at 100k keys). Time stands still under TestClock.
 */
import { assert, describe, it } from "@effect/vitest"
import { HookContext, Principal, ToolCall } from "@interlock/core"
import { Effect, Schema } from "effect"
import { byteBoundedMap, keyBytes } from "../../src/front/http/ByteBoundedMap.ts"
import { MAX_BUCKET_BYTES, rateLimitHook } from "../../src/governance/RateLimiter.ts"

const ctx = (principal: string) => new HookContext({ client: "gateway", serverId: "s", assigns: {}, principal: new Principal({ id: principal }) })
const call = (name: string) => new ToolCall({ serverId: "s", name, args: {}, callId: "1" })

/** Runs the hook once; the verdict's tag. */
const verdictOf = (hook: ReturnType<typeof rateLimitHook>, name: string, principal: string) =>
  Effect.map(hook(call(name), ctx(principal)) as Effect.Effect<{ readonly _tag: string }>, (verdict) => verdict._tag)

describe("rate limit buckets under a flood of distinct keys", () => {
  it.effect("a principal that used up its budget stays limited while 150k other keys come and go", () =>
    Effect.gen(function*() {
      const hook = rateLimitHook({ perMinute: 1, burst: 1 })
      assert.strictEqual(yield* verdictOf(hook, "write", "mallory"), "Continue")
      for (let index = 0; index < 150_000; index++) {
        yield* verdictOf(hook, `tool-${index}`, "flood")
        // Every few thousand keys the attacker tries again; it must stay denied throughout.
        if (index % 5_000 === 0) assert.strictEqual(yield* verdictOf(hook, "write", "mallory"), "Deny", `after ${index} keys`)
      }
      assert.strictEqual(yield* verdictOf(hook, "write", "mallory"), "Deny")
    }), 60_000)

  it.effect("large distinct keys keep the buckets within their byte bound", () =>
    Effect.gen(function*() {
      // 200 keys of 64 KiB would hold 25 MiB: the map keeps the newest that fit in 1 MiB.
      const maxBytes = 1024 * 1024
      const map = byteBoundedMap<number>(maxBytes, (key) => keyBytes(key))
      const key = (index: number) => `${index}-${"n".repeat(64 * 1024)}`
      for (let index = 0; index < 200; index++) map.set(key(index), index)
      assert.isAtMost(map.bytes(), maxBytes)
      assert.strictEqual(map.size(), Math.floor(maxBytes / keyBytes(key(100))))
      assert.strictEqual(map.get(key(199)), 199)
      assert.isUndefined(map.get(key(0)))
      // The hook under the default bound answers such a flood, and the next key still gets its own budget.
      const hook = rateLimitHook({ perMinute: 1, burst: 1 })
      for (let index = 0; index < 200; index++) assert.strictEqual(yield* verdictOf(hook, key(index), "flood"), "Continue")
      assert.strictEqual(yield* verdictOf(hook, key(199), "flood"), "Deny")
      assert.isAbove(MAX_BUCKET_BYTES, 200 * keyBytes(key(0)))
    }))

  it.effect.prop(
    "a byte-bounded map stays within its bound, keeps the newest entry and evicts only least recently used ones",
    [Schema.Array(Schema.Struct({ key: Schema.String, touch: Schema.Boolean })), Schema.Int.check(Schema.isBetween({ minimum: 64, maximum: 4096 }))],
    ([steps, maxBytes]) =>
      Effect.sync(() => {
        const map = byteBoundedMap<number>(maxBytes, (key) => keyBytes(key))
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
