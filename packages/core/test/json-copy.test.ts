/** The door's copy of args and meta: the same JSON, as fresh plain data, or a named problem. */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { copyStrictJsonObject, JSON_COPY_MAX_DEPTH } from "../src/internal/JsonCopy.ts"
import { canonicalJson } from "../src/model/Canonical.ts"

describe("JsonCopy", () => {
  it.effect.prop(
    "any JSON object copies to the same canonical JSON, sharing no container with the input",
    [Schema.Record(Schema.String, Schema.Json)],
    ([value]) =>
      Effect.sync(() => {
        const copy = copyStrictJsonObject(value)
        assert.notStrictEqual(typeof copy, "string")
        assert.strictEqual(canonicalJson(copy), canonicalJson(value))
        if (Object.keys(value).length > 0) assert.notStrictEqual(copy, value)
      }),
    { arbitrary: { runs: 200 } }
  )

  it("a __proto__ key stays data; cycles, class instances and too-deep nesting are refused", () => {
    const parsed = JSON.parse("{\"__proto__\":{\"polluted\":true},\"a\":[1,{\"b\":null}]}")
    const copy = copyStrictJsonObject(parsed)
    assert.strictEqual(canonicalJson(copy), canonicalJson(parsed))
    assert.strictEqual(Object.getPrototypeOf(copy), Object.prototype)
    const cycle: Array<unknown> = []
    cycle.push(cycle)
    assert.strictEqual(copyStrictJsonObject({ cycle }), "not JSON")
    assert.strictEqual(copyStrictJsonObject({ when: new Date() }), "not JSON")
    // biome-ignore lint/suspicious/noSparseArray: a hole is the input under test
    assert.strictEqual(copyStrictJsonObject({ hole: [1, , 3] }), "not JSON")
    let deep: unknown = 1
    for (let i = 0; i < JSON_COPY_MAX_DEPTH + 1; i++) deep = [deep]
    assert.strictEqual(copyStrictJsonObject({ deep }), "too deep")
    const shared = { x: 1 }
    assert.strictEqual(
      canonicalJson(copyStrictJsonObject({ a: shared, b: shared })),
      "{\"a\":{\"x\":1},\"b\":{\"x\":1}}"
    )
    // Shared references 40 levels deep (2^40 paths) copy in linear work.
    let reads = 0
    let dag: Record<string, unknown> = {
      get leaf() {
        reads++
        return 1
      }
    }
    for (let i = 0; i < 40; i++) dag = { l: dag, r: dag }
    assert.notStrictEqual(typeof copyStrictJsonObject(dag), "string")
    assert.strictEqual(reads, 1)
  })
})
