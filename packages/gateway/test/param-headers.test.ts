/**
 * SEP-2243's Mcp-Param-* rule (ParamHeaders.ts) on its own: a header a host builds from any
 * argument text by the rule is accepted, any one-character edit of it is refused, and the
 * revision's table (missing, null, absent, repeated, malformed Base64, numbers) holds case by case.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import {
  checkParamHeaders,
  declaredHeaders,
  decodeBase64,
  decodeParamValue,
  encodeParamValue,
  MAX_PARAM_HEADER_LENGTH,
  type ParamHeader
} from "../src/front/http/mcp/ParamHeaders.ts"

const REGION: ReadonlyArray<ParamHeader> = [{ path: ["region"], name: "Region" }]

const PIECES = ["=?base64?", "?=", " ", "\t", "=", "\r\n", "é", "世界"]

/**
 * A character of every kind a header must survive: printable ASCII, control, BMP, astral, or a piece of the sentinel.
 */
const charOf = (n: number): string => {
  switch (n % 5) {
    case 0:
      return String.fromCharCode(32 + (n % 95))
    case 1:
      return String.fromCharCode(n % 32)
    case 2: {
      const code = 0x80 + (n % (0xd800 - 0x80))
      return String.fromCharCode(code)
    }
    case 3:
      return String.fromCodePoint(0x10000 + (n % 0x100000))
    default:
      return PIECES[n % PIECES.length]!
  }
}

const Codes = Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 0x10ffff })))

/** Texts short enough that trying every edit of their header stays a unit test's work, on a loaded machine too. */
const ShortCodes = Codes.check(Schema.isMaxLength(12))

/**
 * What one character of a header is changed to: the whole Base64 alphabet, the sentinel's marks, spaces, a control and
 * non-ASCII.
 */
const REPLACEMENTS = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=?-_ \t\u0000\u007fé"]

/** The headers of a request, read as Node gives them (by lowercase name, each value once). */
const headers = (entries: Record<string, string | ReadonlyArray<string>>) => (name: string) => {
  const found = Object.entries(entries).find(([key]) => key.toLowerCase() === name)?.[1]
  return found === undefined ? undefined : typeof found === "string" ? [found] : found
}

const faultOf = (
  declared: ReadonlyArray<ParamHeader>,
  args: unknown,
  sent: Record<string, string | ReadonlyArray<string>>
) => checkParamHeaders(declared, args, headers(sent))?.fault

describe("Mcp-Param-* headers", () => {
  it.effect.prop(
    "a header built by the rule from any text is accepted, and decodes to that text",
    [Codes],
    ([codes]) =>
      Effect.sync(() => {
        const text = codes.map(charOf).join("")
        const header = encodeParamValue(text)
        assert.strictEqual(decodeParamValue(header), text)
        assert.isUndefined(checkParamHeaders(REGION, { region: text }, headers({ "Mcp-Param-Region": header })))
      })
  )

  it.effect.prop(
    "every one-character change of such a header is refused",
    [ShortCodes],
    ([codes]) =>
      Effect.sync(() => {
        const text = codes.map(charOf).join("")
        const header = encodeParamValue(text)
        for (let index = 0; index < header.length; index++) {
          for (const replacement of REPLACEMENTS) {
            const changed = header.slice(0, index) + replacement + header.slice(index + 1)
            if (changed === header) continue
            assert.notStrictEqual(decodeParamValue(changed), text, changed)
            assert.isDefined(
              checkParamHeaders(REGION, { region: text }, headers({ "Mcp-Param-Region": changed })),
              changed
            )
          }
        }
      })
  )

  it("follows the revision's table: a value needs its header; null or absent expects none", () => {
    assert.strictEqual(faultOf(REGION, { region: "us-west1" }, {}), "missing")
    assert.isUndefined(faultOf(REGION, { region: "us-west1" }, { "mcp-param-region": "us-west1" }))
    assert.isUndefined(faultOf(REGION, { region: null }, {}))
    assert.isUndefined(faultOf(REGION, {}, {}))
    assert.isUndefined(faultOf(REGION, undefined, {}))
    // A header for an argument the body does not carry disagrees with it.
    assert.strictEqual(faultOf(REGION, {}, { "Mcp-Param-Region": "us-west1" }), "mismatch")
    assert.strictEqual(faultOf(REGION, { region: "us-east1" }, { "Mcp-Param-Region": "us-west1" }), "mismatch")
    assert.strictEqual(
      faultOf(REGION, { region: "us-west1" }, { "Mcp-Param-Region": ["us-west1", "us-west1"] }),
      "repeated"
    )
    // Header values are case-sensitive; surrounding spaces are the field's, not the value's.
    assert.strictEqual(faultOf(REGION, { region: "us-west1" }, { "Mcp-Param-Region": "US-WEST1" }), "mismatch")
    assert.isUndefined(faultOf(REGION, { region: "us-west1" }, { "Mcp-Param-Region": "  us-west1\t" }))
  })

  it("decodes Base64 strictly: padding, alphabet, pad bits and UTF-8", () => {
    assert.isUndefined(faultOf(REGION, { region: "Hello" }, { "Mcp-Param-Region": "=?base64?SGVsbG8=?=" }))
    assert.strictEqual(faultOf(REGION, { region: "Hello" }, { "Mcp-Param-Region": "=?base64?SGVsbG8?=" }), "invalid")
    assert.strictEqual(
      faultOf(REGION, { region: "Hello" }, { "Mcp-Param-Region": "=?base64?SGVs!!!bG8=?=" }),
      "invalid"
    )
    // "SGVsbG9=" drops a set bit: the same bytes, so it is not canonical.
    assert.strictEqual(faultOf(REGION, { region: "Hello" }, { "Mcp-Param-Region": "=?base64?SGVsbG9=?=" }), "invalid")
    assert.strictEqual(faultOf(REGION, { region: "\uFFFD" }, { "Mcp-Param-Region": "=?base64?/w==?=" }), "invalid")
    assert.strictEqual(faultOf(REGION, { region: "" }, { "Mcp-Param-Region": "=?base64?=" }), "invalid")
    assert.isUndefined(decodeBase64("SGVsbG8=x"))
    assert.isUndefined(decodeBase64("SG=sbG8="))
    assert.strictEqual(decodeBase64("")?.length, 0)
    // Without both markers the value is literal.
    assert.isUndefined(faultOf(REGION, { region: "SGVsbG8=" }, { "Mcp-Param-Region": "SGVsbG8=" }))
    assert.isUndefined(faultOf(REGION, { region: "=?base64?SGVsbG8=" }, { "Mcp-Param-Region": "=?base64?SGVsbG8=" }))
    assert.strictEqual(encodeParamValue("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=")
    assert.strictEqual(encodeParamValue("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=")
  })

  it("refuses a value no field carries, and one past the cap, unread", () => {
    assert.strictEqual(faultOf(REGION, { region: "a\u0000b" }, { "Mcp-Param-Region": "a\u0000b" }), "invalid")
    assert.strictEqual(faultOf(REGION, { region: "é" }, { "Mcp-Param-Region": "é" }), "invalid")
    const long = "a".repeat(MAX_PARAM_HEADER_LENGTH + 1)
    assert.strictEqual(faultOf(REGION, { region: long }, { "Mcp-Param-Region": long }), "invalid")
    const huge = `=?base64?${"QUFB".repeat(MAX_PARAM_HEADER_LENGTH)}?=`
    assert.strictEqual(
      faultOf(REGION, { region: "A".repeat(3 * MAX_PARAM_HEADER_LENGTH) }, { "Mcp-Param-Region": huge }),
      "invalid"
    )
  })

  it("mirrors integers and booleans as the revision converts them, integers compared numerically", () => {
    const shard: ReadonlyArray<ParamHeader> = [{ path: ["shard"], name: "Shard" }]
    assert.isUndefined(faultOf(shard, { shard: 42 }, { "Mcp-Param-Shard": "42" }))
    assert.isUndefined(faultOf(shard, { shard: 42 }, { "Mcp-Param-Shard": "42.0" }))
    assert.isUndefined(faultOf(shard, { shard: -7 }, { "Mcp-Param-Shard": "-7" }))
    assert.strictEqual(faultOf(shard, { shard: 42 }, { "Mcp-Param-Shard": "43" }), "mismatch")
    assert.strictEqual(faultOf(shard, { shard: 42 }, { "Mcp-Param-Shard": "4.2e1" }), "mismatch")
    assert.isUndefined(faultOf(shard, { shard: true }, { "Mcp-Param-Shard": "true" }))
    assert.strictEqual(faultOf(shard, { shard: true }, { "Mcp-Param-Shard": "True" }), "mismatch")
    // An object mirrors nothing: no header is expected, and one sent disagrees.
    assert.isUndefined(faultOf(shard, { shard: { n: 1 } }, {}))
    assert.strictEqual(faultOf(shard, { shard: { n: 1 } }, { "Mcp-Param-Shard": "[object Object]" }), "mismatch")
  })

  it("finds declarations on properties chains only, named by tokens, read from own properties", () => {
    const schema = {
      type: "object",
      properties: {
        region: { type: "string", "x-mcp-header": "Region" },
        target: { type: "object", properties: { zone: { type: "string", "x-mcp-header": "Zone" } } },
        list: { type: "array", items: { type: "string", "x-mcp-header": "Item" } },
        bad: { type: "string", "x-mcp-header": "Bad Name" },
        constructor: { type: "string", "x-mcp-header": "Ctor" }
      },
      anyOf: [{ properties: { other: { type: "string", "x-mcp-header": "Other" } } }]
    }
    const declared = declaredHeaders(schema)
    assert.deepStrictEqual(declared, [
      { path: ["region"], name: "Region" },
      { path: ["target", "zone"], name: "Zone" },
      { path: ["constructor"], name: "Ctor" }
    ])
    assert.isUndefined(
      faultOf(declared, { region: "r", target: { zone: "z" } }, { "Mcp-Param-Region": "r", "Mcp-Param-Zone": "z" })
    )
    assert.strictEqual(
      faultOf(declared, { region: "r", target: { zone: "z" } }, { "Mcp-Param-Region": "r" }),
      "missing"
    )
    // `constructor` is not an argument just because every object inherits one.
    assert.isUndefined(faultOf(declared, { region: "r" }, { "Mcp-Param-Region": "r" }))
    assert.deepStrictEqual(declaredHeaders(undefined), [])
  })

  it("names the header in its message, never the value", () => {
    const refused = checkParamHeaders(
      REGION,
      { region: "secret-value" },
      headers({ "Mcp-Param-Region": "other-secret" })
    )
    assert.include(refused?.message, "Mcp-Param-Region")
    assert.notInclude(refused?.message, "secret")
  })
})
