import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Canonical, JsonText, Receipt, ToolCall } from "../src/index.ts"
import { makeReceipt } from "../src/model/Receipt.ts"
import { makeToolCall } from "../src/model/ToolCall.ts"

const shuffleKeys = (value: unknown, seed: number): unknown => {
  if (Array.isArray(value)) return value.map((v, i) => shuffleKeys(v, seed + i))
  if (typeof value !== "object" || value === null) return value
  const entries = Object.entries(value)
  // Deterministic reorder: rotate by seed and reverse on odd seeds.
  const rotated = entries.map((_, i) => entries[(i + seed) % entries.length])
  const ordered = seed % 2 === 1 ? rotated.reverse() : rotated
  return Object.fromEntries(ordered.map(([k, v], i) => [k, shuffleKeys(v, seed + i + 1)]))
}

describe("canonical JSON (RFC 8785)", () => {
  it("sorts keys by UTF-16 code units and writes numbers and strings as ECMAScript does", () => {
    assert.strictEqual(Canonical.canonicalJson({ b: 1, a: [true, null, "x"] }), `{"a":[true,null,"x"],"b":1}`)
    // RFC 8785 section 3.2.3 sorting example: code-unit order, not code-point order.
    assert.strictEqual(
      Canonical.canonicalJson({ "\u20ac": 1, "\r": 2, "\ud83d\ude00": 3, "1": 4, "\u00f6": 5 }),
      `{"\\r":2,"1":4,"\u00f6":5,"\u20ac":1,"\ud83d\ude00":3}`
    )
    assert.strictEqual(Canonical.canonicalJson([1e21, 1e-7, -0, 0.1 + 0.2]), "[1e+21,1e-7,0,0.30000000000000004]")
    assert.strictEqual(Canonical.canonicalJson({ a: undefined, b: 2 }), `{"b":2}`)
  })

  it("rejects what JSON cannot carry, naming where", () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    for (
      const [value, path] of [
        [{ a: Number.NaN }, "$.a"],
        [{ a: [1, () => 1] }, "$.a[1]"],
        [{ a: 1n }, "$.a"],
        [cyclic, "$.self"],
        [{ d: new Date(0) }, "$.d"]
      ] as const
    ) {
      const out = Canonical.canonicalJson(value)
      assert.instanceOf(out, Canonical.NotJson)
      assert.strictEqual((out as Canonical.NotJson).path, path)
    }
  })

  it.effect.prop(
    "key order never changes the canonical text",
    [Schema.Json, Schema.Int],
    ([json, seed]) =>
      Effect.sync(() => {
        assert.strictEqual(Canonical.canonicalJson(shuffleKeys(json, Math.abs(seed))), Canonical.canonicalJson(json))
        assert.deepStrictEqual(
          JsonText.parse(Canonical.canonicalJson(json) as string),
          JsonText.parse(JSON.stringify(json))
        )
      })
  )
})

describe("ToolCall digest", () => {
  const args = Schema.Record(Schema.String, Schema.Json)

  it.effect.prop(
    "is stable under key order and recomputed on rewrite",
    [args, Schema.Int],
    ([a, seed]) =>
      Effect.sync(() => {
        const one = makeToolCall({ serverId: "s", name: "t", args: a as any, callId: "1" })
        const two = makeToolCall({ serverId: "s", name: "t", args: shuffleKeys(a, Math.abs(seed)) as any, callId: "2" })
        assert.strictEqual(one.digest, two.digest)
        assert.match(one.digest, /^[0-9a-f]{64}$/)
        const rewritten = one.with({ args: { ...a, "\u0000extra": 1 } as any })
        assert.notStrictEqual(rewritten.digest, one.digest)
      })
  )

  it.effect.prop(
    "any change to args, name or server changes it",
    [args, Schema.String, Schema.Json],
    ([a, key, value]) =>
      Effect.sync(() => {
        const base = makeToolCall({ serverId: "s", name: "t", args: a as any, callId: "1" })
        const changed = { ...a, [key]: value }
        const same = Canonical.canonicalJson(changed) === Canonical.canonicalJson(a)
        assert.strictEqual(base.with({ args: changed as any }).digest === base.digest, same)
        assert.notStrictEqual(
          makeToolCall({ serverId: "s2", name: "t", args: a as any, callId: "1" }).digest,
          base.digest
        )
        assert.notStrictEqual(
          makeToolCall({ serverId: "s", name: "t2", args: a as any, callId: "1" }).digest,
          base.digest
        )
      })
  )

  it("does not depend on callId or meta", () => {
    const a = makeToolCall({ serverId: "s", name: "t", args: { x: 1 }, callId: "1" })
    const b = makeToolCall({ serverId: "s", name: "t", args: { x: 1 }, callId: "2", meta: { m: true } })
    assert.strictEqual(a.digest, b.digest)
    assert.instanceOf(a, ToolCall)
  })
})

describe("receipts", () => {
  it("carry the final call's digest lazily, and keep one given to them (decoded, constructed)", () => {
    const call = makeToolCall({ serverId: "s", name: "t", args: { x: 1 }, callId: "1" })
    const fields = { callId: "1", serverId: "s", name: "t", hooks: [], sent: true, outcome: "ok" as const }
    const lazy = makeReceipt(fields, call)
    assert.strictEqual(lazy.digest, call.digest)
    const json = JSON.parse(JSON.stringify(lazy))
    assert.strictEqual(json.digest, call.digest)
    const decoded = Schema.decodeUnknownSync(Receipt)(json)
    assert.strictEqual(decoded.digest, call.digest)
    assert.deepStrictEqual(Schema.encodeSync(Receipt)(lazy), Schema.encodeSync(Receipt)(decoded))
    assert.strictEqual(new Receipt({ ...fields, digest: "abc" }).digest, "abc")
    assert.strictEqual(new Receipt(fields).digest, undefined)
  })
})
