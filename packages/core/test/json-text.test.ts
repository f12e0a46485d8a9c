/** JsonText.parse: JSON.parse's values, with every key exactly as the text spells it. */
import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Effect, Schema } from "effect"
import { parseStrict } from "../src/internal/StrictJsonParser.ts"
import { canonicalJson, type Json } from "../src/model/Canonical.ts"
import * as JsonText from "../src/model/JsonText.ts"

/** The key Node 24's JSON.parse may read `key` as: its escaped text, cut to its decoded length. */
const misreadOf = (key: string): string => JSON.stringify(key).slice(1, -1).slice(0, key.length)

/** The same value with every key replaced by its misread form (the sibling that sets the trap). */
const trapOf = (value: Json): Json => {
  if (Array.isArray(value)) return value.map(trapOf)
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [misreadOf(key), trapOf(item)]))
}

/**
 * Outcome of a parse: the canonical text of its value (or what JSON cannot carry, as `1e999`'s Infinity), or
 * "SyntaxError".
 */
const outcome = (parse: (text: string) => unknown, text: string): string => {
  try {
    const canonical = canonicalJson(parse(text))
    return typeof canonical === "string" ? canonical : `not JSON: ${canonical.what} at ${canonical.path}`
  } catch (error) {
    return error instanceof SyntaxError ? "SyntaxError" : `other: ${String(error)}`
  }
}

const hasBackslashKey = (text: string) => /"[^"]*\\[^"]*"\s*:/.test(text)

const Records = Schema.Record(Schema.String, Schema.Json)
/**
 * JSON text with at most one edit (a piece of JSON's alphabet put in, or a character taken out), so much of it is
 * nearly JSON.
 */
const PIECES = [
  "",
  "{",
  "}",
  "[",
  "]",
  ",",
  ":",
  "\"",
  "\\",
  "\\u00",
  "0",
  "-",
  ".",
  "e",
  " ",
  "\n",
  "\u0001",
  "true",
  "\"k\":"
] as const
const nearJson = Arbitrary.all([
  Arbitrary.schema(Schema.Json),
  Arbitrary.schema(Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: 1 }))),
  Arbitrary.schema(Schema.Literals(PIECES)),
  Arbitrary.schema(Schema.Boolean)
]).pipe(Arbitrary.map(([value, where, piece, cut]) => {
  const text = JSON.stringify(value)
  const at = Math.floor(where * text.length)
  return text.slice(0, at) + piece + text.slice(cut ? at + 1 : at)
}))

describe("JsonText.parse", () => {
  it("reads an escaped key as written when a sibling object has the misread key", () => {
    const text =
      "{\"a\":{\"k\":\"v\",\"x\\\\\":\"s\"},\"b\":{\"k\":\"v\",\"x\\n\":\"SECRET\"},\"c\":[{\"\\\\\":1},{\"\\\"\":2}]}"
    const value = JsonText.parse(text) as { b: Record<string, unknown>; c: Array<Record<string, unknown>> }
    assert.deepStrictEqual(Object.keys(value.b), ["k", "x\n"])
    assert.deepStrictEqual(Object.keys(value.c[1]!), ["\""])
  })

  it.effect.prop(
    "any JSON object beside its trap reads back with exactly its keys and values",
    [Records],
    ([record]) =>
      Effect.sync(() => {
        const text = JSON.stringify({ trap: trapOf(record), value: record, again: [trapOf(record), record] })
        const read = JsonText.parse(text) as { value: Json; again: [Json, Json] }
        assert.strictEqual(canonicalJson(read.value), canonicalJson(record))
        assert.strictEqual(canonicalJson(read.again[1]), canonicalJson(record))
        assert.deepStrictEqual(Object.keys(read.value as object), Object.keys(record))
      }),
    { arbitrary: { runs: 300 } }
  )

  it("text without a backslash is JSON.parse's own value; bad text is JSON.parse's SyntaxError", () => {
    assert.deepStrictEqual(JsonText.parse("{\"a\":[1,-0.5e3,true,null,\"x\"]}"), { a: [1, -500, true, null, "x"] })
    for (const bad of ["", "{", "{\"a\":1,}", "[1,]", "01", "\"\\x\"", "{\"a\" 1}", "tru", "1 2", "\"\u0001\""]) {
      assert.throws(() => JsonText.parse(bad), SyntaxError)
      assert.throws(() => parseStrict(bad), SyntaxError)
    }
  })
})

describe("the strict parser", () => {
  it.effect.prop("agrees with JSON.parse on any JSON value, in any layout", [
    Schema.Json,
    Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 4 }))
  ], ([value, indent]) =>
    Effect.sync(() => {
      const text = JSON.stringify(value, null, indent)
      assert.strictEqual(outcome(parseStrict, text), canonicalJson(value))
    }), { arbitrary: { runs: 300 } })

  it.effect.prop("accepts exactly the text JSON.parse accepts", [nearJson], ([text]) =>
    Effect.sync(() => {
      const native = outcome(JSON.parse, text)
      const strict = outcome(parseStrict, text)
      if (native === "SyntaxError" || strict === "SyntaxError" || !hasBackslashKey(text)) {
        assert.strictEqual(strict, native, text)
      }
    }), { arbitrary: { runs: 2000 } })

  it(
    "keeps __proto__ as data, keeps the first place of a repeated key, and parses deep nesting " +
      "without recursion",
    () => {
      const parsed = parseStrict("{\"__proto__\":{\"polluted\":true},\"a\":1,\"b\":2,\"a\":3}") as Record<
        string,
        unknown
      >
      assert.strictEqual(Object.getPrototypeOf(parsed), Object.prototype)
      assert.deepStrictEqual(Object.keys(parsed), ["__proto__", "a", "b"])
      assert.strictEqual(parsed.a, 3)
      assert.isUndefined(({} as Record<string, unknown>).polluted)
      const depth = 200_000
      let deep = parseStrict(`${"[".repeat(depth)}"\\u00e9"${"]".repeat(depth)}`)
      for (let i = 0; i < depth; i++) deep = (deep as Array<unknown>)[0]
      assert.strictEqual(deep, "é")
      assert.strictEqual(parseStrict("\"\\ud800\\/\\b\""), "\ud800/\b")
    }
  )
})
