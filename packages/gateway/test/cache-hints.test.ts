/**
 * The 2026-07-28 cache hints of the gateway's merged tools/list: never looser than any server's
 * (shortest ttl, narrowest scope, a server without hints counts as `0`/`private`), private when the
 * gateway's own hooks make the list per principal; and the listing's deterministic order, on the wire.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as path from "node:path"
import { type CacheHint, mergeCacheHints, NO_CACHE } from "../src/calls/CacheHints.ts"
import { httpClient, NODE, startGateway } from "./e2e.ts"
import { modernHttpClient } from "./modern-wire.ts"

const FIXTURE = path.join(import.meta.dirname, "fixtures", "meta-server.ts")
const metaServer = (...flags: ReadonlyArray<string>) => ({ command: NODE, args: [FIXTURE, ...flags] })

const Hint = Schema.UndefinedOr(
  Schema.Struct({
    ttlMs: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
    cacheScope: Schema.Literals(["public", "private"])
  })
)

describe("the merge rule of cache hints", () => {
  it.effect.prop("a merge is never looser than any part, and the order of the parts does not matter", [
    Schema.Array(Hint),
    Schema.Boolean
  ], ([parts, perPrincipal]) =>
    Effect.sync(() => {
      const merged = mergeCacheHints(parts, perPrincipal)
      const reversed = mergeCacheHints([...parts].reverse(), perPrincipal)
      const each = parts.map((part): CacheHint => part ?? NO_CACHE)
      return merged.ttlMs === reversed.ttlMs && merged.cacheScope === reversed.cacheScope &&
        each.every((part) =>
          merged.ttlMs <= part.ttlMs && (merged.cacheScope === "private" || part.cacheScope === "public")
        ) &&
        (!perPrincipal || merged.cacheScope === "private") &&
        (parts.length === 0 ? merged.ttlMs === 0 : each.some((part) => part.ttlMs === merged.ttlMs))
    }))

  it("keeps what every part allows", () => {
    assert.deepStrictEqual(
      mergeCacheHints([{ ttlMs: 60_000, cacheScope: "public" }, { ttlMs: 30_000, cacheScope: "public" }], false),
      { ttlMs: 30_000, cacheScope: "public" }
    )
    assert.deepStrictEqual(
      mergeCacheHints([{ ttlMs: 60_000, cacheScope: "public" }, { ttlMs: 30_000, cacheScope: "private" }], false),
      { ttlMs: 30_000, cacheScope: "private" }
    )
    assert.deepStrictEqual(mergeCacheHints([{ ttlMs: 60_000, cacheScope: "public" }, undefined], false), NO_CACHE)
    assert.deepStrictEqual(mergeCacheHints([{ ttlMs: 60_000, cacheScope: "public" }], true), {
      ttlMs: 60_000,
      cacheScope: "private"
    })
  })
})

/** A 2026-07-28 host's tools/list through the gateway: the names and the cache hints, fetched afresh. */
const modernList = (url: string) =>
  Effect.scoped(Effect.flatMap(modernHttpClient(url), (client) =>
    Effect.promise(async () => {
      const result = await client.listTools(undefined, { cacheMode: "bypass" }) as {
        tools: Array<{ name: string }>
        ttlMs?: number
        cacheScope?: string
      }
      return { names: result.tools.map((tool) => tool.name), ttlMs: result.ttlMs, cacheScope: result.cacheScope }
    })))

describe("the gateway's tools/list to a 2026-07-28 host", () => {
  it.live("carries the tightest of its servers' hints, and lists in one order", () =>
    Effect.gen(function*() {
      const { http } = yield* startGateway({
        servers: {
          web: metaServer("--cache=60000:public", "--tools=zeta,alpha"),
          files: metaServer("--cache=30000:public", "--tools=beta")
        },
        policy: { default: "allow" }
      })
      const first = yield* modernList(http.mcpUrl)
      assert.strictEqual(first.ttlMs, 30_000)
      assert.strictEqual(first.cacheScope, "public")
      // Servers in config order, each server's tools in its own order (web lists zeta before alpha).
      const web = first.names.filter((name) => name.startsWith("web__"))
      assert.isBelow(first.names.indexOf("web__zeta"), first.names.indexOf("web__alpha"))
      assert.deepStrictEqual(
        first.names.slice(0, web.length),
        web,
        "web's tools come first, as the config lists it first"
      )
      assert.deepStrictEqual((yield* modernList(http.mcpUrl)).names, first.names)
      const legacy = yield* httpClient(http.mcpUrl)
      const old = yield* Effect.promise(() => legacy.listTools())
      assert.deepStrictEqual(old.tools.map((tool) => tool.name), first.names, "a 2025 host gets the same order")
    }), 60_000)

  it.live(
    "a 2025 server among them, or a listing hook, makes it private and stale at once",
    () =>
      Effect.gen(function*() {
        const mixed = yield* startGateway({
          servers: { web: metaServer("--cache=60000:public"), old: metaServer("--legacy") },
          policy: { default: "allow" }
        })
        const listed = yield* modernList(mixed.http.mcpUrl)
        assert.deepStrictEqual([listed.ttlMs, listed.cacheScope], [0, "private"])
        const hooked = yield* startGateway({
          servers: { web: metaServer("--cache=60000:public") },
          policy: { default: "allow" },
          hooks: { toolsListed: [{ id: "keep-all", match: "*", run: () => ({ _tag: "Continue" }) }] }
        })
        const perPrincipal = yield* modernList(hooked.http.mcpUrl)
        assert.deepStrictEqual([perPrincipal.ttlMs, perPrincipal.cacheScope], [60_000, "private"])
      }),
    60_000
  )
})
