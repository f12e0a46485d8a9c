/**
 * The token cache on TestClock: a token is kept until a quarter of its lifetime (at most 30 s)
 * before it expires, concurrent requests for one key share one token request, a failed request is
 * not kept, and keys never share a token.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { CredentialError } from "../src/credentials/CredentialError.ts"
import { makeTokenCache, refreshMarginMs, tokenFor } from "../src/credentials/TokenCache.ts"
import type { IssuedToken } from "../src/credentials/TokenEndpoint.ts"

/** A cache whose lookup issues `key#n` for `lifetimeMs`, counting its requests; `fail` makes it refuse. */
const counted = (lifetimeMs: number) =>
  Effect.gen(function*() {
    const asked: Array<string> = []
    const state = { fail: false }
    const cache = yield* makeTokenCache((key: string): Effect.Effect<IssuedToken, CredentialError> =>
      Effect.suspend(() => {
        asked.push(key)
        if (state.fail) {
          return Effect.fail(new CredentialError({ serverId: "s", reason: "token-endpoint", detail: "refused" }))
        }
        return Effect.succeed({ token: Redacted.make(`${key}#${asked.length}`), lifetimeMs, issuedAt: 0 })
      })
    )
    const value = (key: string) => Effect.map(tokenFor(cache, key), (issued) => Redacted.value(issued.token))
    return { asked, state, value }
  })

describe("token cache", () => {
  it("the refresh margin is a quarter of the lifetime, at most 30 s", () => {
    assert.strictEqual(refreshMarginMs(2_000), 500)
    assert.strictEqual(refreshMarginMs(60_000), 15_000)
    assert.strictEqual(refreshMarginMs(3_600_000), 30_000)
  })

  it.effect("kept until the margin before expiry, then asked for again", () =>
    Effect.gen(function*() {
      const { asked, value } = yield* counted(60_000)
      assert.strictEqual(yield* value("alice"), "alice#1")
      yield* TestClock.adjust("44999 millis")
      assert.strictEqual(yield* value("alice"), "alice#1")
      yield* TestClock.adjust("2 millis")
      assert.strictEqual(yield* value("alice"), "alice#2")
      assert.deepStrictEqual(asked, ["alice", "alice"])
    }))

  it.effect("concurrent requests share one token request; keys never share a token", () =>
    Effect.gen(function*() {
      const { asked, value } = yield* counted(60_000)
      const values = yield* Effect.all(
        Array.from({ length: 20 }, (_, i) => value(i % 2 === 0 ? "alice" : "bob")),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(new Set(values.filter((_, i) => i % 2 === 0)), new Set(["alice#1"]))
      assert.deepStrictEqual(new Set(values.filter((_, i) => i % 2 === 1)), new Set(["bob#2"]))
      assert.deepStrictEqual(asked, ["alice", "bob"])
    }))

  it.effect("a refused request is not kept: the next one asks again", () =>
    Effect.gen(function*() {
      const { asked, state, value } = yield* counted(60_000)
      state.fail = true
      const refused = yield* Effect.flip(value("alice"))
      assert.strictEqual(refused.reason, "token-endpoint")
      state.fail = false
      assert.strictEqual(yield* value("alice"), "alice#2")
      assert.deepStrictEqual(asked, ["alice", "alice"])
    }))

  it.effect("a request waiting for another's token request gets that token", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      let issued = 0
      const cache = yield* makeTokenCache((_: string) =>
        Effect.as(Deferred.await(gate), { token: Redacted.make(`t${++issued}`), lifetimeMs: 60_000, issuedAt: 0 })
      )
      const first = yield* Effect.forkChild(tokenFor(cache, "k"))
      const second = yield* Effect.forkChild(tokenFor(cache, "k"))
      yield* Deferred.succeed(gate, undefined)
      const [a, b] = [yield* Fiber.join(first), yield* Fiber.join(second)]
      assert.deepStrictEqual([Redacted.value(a.token), Redacted.value(b.token), issued], ["t1", "t1", 1])
    }))
})
