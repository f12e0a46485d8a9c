import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { canonicalName, sameName } from "../src/index.ts"

describe("loose names", () => {
  it("fold case, width and the separators - . _", () => {
    assert.isTrue(sameName("fs/read_file", "FS/Read-File"))
    assert.isTrue(sameName("read.file", "READ_FILE"))
    assert.isTrue(sameName("ｒｅａｄ＿ｆｉｌｅ", "read-file")) // full-width forms, NFKC
    assert.isTrue(sameName("STRASSE", "straße"))
    assert.isFalse(sameName("read_file", "readfile"))
    assert.isFalse(sameName("write_file", "read_file"))
  })

  it.effect.prop("canonicalName is idempotent", [Schema.String], ([name]) =>
    Effect.sync(() => {
      const once = canonicalName(name)
      assert.strictEqual(canonicalName(once), once)
    }))

  it.effect.prop(
    "case and separator spellings of a name compare equal",
    [Schema.String],
    ([name]) =>
      Effect.sync(() => {
        assert.isTrue(sameName(name, name.toUpperCase()))
        assert.isTrue(sameName(name, name.replace(/_/g, "-").replace(/\./g, "_")))
        assert.notInclude(canonicalName(name), "-")
        assert.notInclude(canonicalName(name), ".")
      })
  )
})
