import { assert, describe, it } from "@effect/vitest"
import { JsonText } from "@interlock/core"
import { Effect, Schema } from "effect"
import { GatewayConfig } from "../src/config/Config.ts"
import { decodeConfig } from "../src/config/ConfigLoader.ts"
import { blankComments } from "../src/config/JsonComments.ts"
import { editDistance, nearestKey } from "../src/config/NearestKey.ts"
import { cellText, formatTable } from "../src/config/TextTable.ts"

const TOP_KEYS = Object.keys(GatewayConfig.fields)
const base = { servers: { files: { command: "npx" } } }

describe("nearest key", () => {
  it.effect("suggests the key a typo came from, at any level, from the Schema's own keys", () =>
    Effect.gen(function*() {
      const cases: Array<[unknown, string]> = [
        [{ servres: {} }, `servres  is not a known key (did you mean "servers"?)`],
        [{ ...base, polcy: {} }, `did you mean "policy"?`],
        [
          { ...base, policy: { rules: [{ match: "x", decision: "deny", reasn: "r" }] } },
          `policy.rules[0].reasn: is not a known key (did you mean "reason"?)`
        ],
        [{ servers: { a: { comand: "x" } } }, `servers.a.comand   is not a known key (did you mean "command"?)`],
        [{ ...base, listen: { principals: { alice: { tokne: "t" } } } }, `did you mean "token"?`],
        [{ ...base, audit: { Path: "a.db" } }, `audit.Path: is not a known key (did you mean "path"?)`]
      ]
      for (const [raw, expected] of cases) {
        const error = yield* Effect.flip(decodeConfig(raw))
        assert.include(error.message, expected, JSON.stringify(raw))
      }
    }))

  it.effect("lists every problem, each with its path, and no 'more problems'", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        decodeConfig({
          servres: {},
          policy: { default: "maybe", rules: [{ match: "x", decision: "perhaps" }] },
          maxArgBytes: -1
        })
      )
      assert.include(error.detail, "5 problems:")
      for (const where of ["servres", "servers", "policy.default", "policy.rules[0].decision", "maxArgBytes"]) {
        assert.match(error.detail, new RegExp(`\\n  ${where.replace(/[[\].]/g, "\\$&")} +\\S`))
      }
      assert.notInclude(error.message, "more problem")
      assert.notInclude(error.message, "maybe")
      assert.notInclude(error.message, "perhaps")
    }))

  it("has no suggestion for a key far from every known one", () => assert.isUndefined(nearestKey("zzzzzz", TOP_KEYS)))

  it.effect.prop(
    "a typo's suggestion is never farther from it than the key it came from",
    [Schema.Int, Schema.Int],
    ([pick, at]) =>
      Effect.sync(() => {
        const key = TOP_KEYS[Math.abs(pick) % TOP_KEYS.length]
        const i = Math.abs(at) % (key.length - 1)
        const swapped = key.slice(0, i) + key[i + 1] + key[i] + key.slice(i + 2)
        const dropped = key.slice(0, i) + key.slice(i + 1)
        for (const typo of [swapped, dropped]) {
          if (typo === key || TOP_KEYS.includes(typo)) continue
          const near = nearestKey(typo, TOP_KEYS)
          assert.isDefined(near, typo)
          assert.isAtMost(editDistance(typo, near!), editDistance(typo, key), typo)
        }
      })
  )
})

describe("JSON comments", () => {
  it("blanks // and /* */ comments outside strings and keeps line and column", () => {
    const text = `{\n  // a comment "with a quote\n  "a": "http://x/* not a comment */", /* gone\n */ "b": 1\n}`
    const blanked = blankComments(text)!
    assert.deepStrictEqual(JSON.parse(blanked), { a: "http://x/* not a comment */", b: 1 })
    assert.strictEqual(blanked.length, text.length)
    assert.deepStrictEqual(blanked.split("\n").map((line) => line.length), text.split("\n").map((line) => line.length))
    assert.isUndefined(blankComments(`{ "a": 1 /* never closed }`))
  })

  it.effect.prop(
    "any JSON, with comments on every line, reads back as itself",
    [Schema.Json],
    ([json]) =>
      Effect.sync(() => {
        const text = JSON.stringify(json, null, 2)
        assert.strictEqual(blankComments(text), text)
        const commented = text.split("\n").map((line) => `/* before "x" */ ${line} // after "y" */`).join("\n")
        assert.deepStrictEqual(JsonText.parse(blankComments(commented)!), JsonText.parse(text))
      })
  )
})

describe("text tables", () => {
  it("aligns columns to the widest cell and cuts a cell past its cap", () => {
    const lines = formatTable([["ID", "TOOL", "OUTCOME"], ["1", "fs/read_file", "ok"], [
      "22",
      "x".repeat(60),
      "denied"
    ]], [{ align: "right" }, { max: 20 }, {}])
    assert.deepStrictEqual(lines, [
      "ID  TOOL                  OUTCOME",
      " 1  fs/read_file          ok",
      `22  ${"x".repeat(19)}…  denied`
    ])
  })

  it.effect.prop("every row's last column starts at the same place, and no control character is printed", [
    Schema.Array(Schema.Tuple([Schema.String, Schema.String]))
  ], ([rows]) =>
    Effect.sync(() => {
      const lines = formatTable(rows.map(([a, b]) => [a, b, "END"]))
      const starts = new Set(lines.map((line) => line.length - "END".length))
      assert.isAtMost(starts.size, 1)
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters
      for (const line of lines) assert.notMatch(line, /[\u0000-\u001f\u007f-\u009f]/)
      assert.strictEqual(cellText("a\u001b[31mred\n"), "a\\x1b[31mred\\n")
    }))
})
