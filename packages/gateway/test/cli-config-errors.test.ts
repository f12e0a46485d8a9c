/**
 * The config errors a user meets first, through the CLI: a trailing comma names its line and
 * column (and that JSON allows none) without quoting the file, and the config file is named the
 * same way by every message: relative to the working directory inside it, absolute outside it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import * as path from "node:path"
import { lineColumn, syntaxErrorWhere } from "../src/config/JsonSyntax.ts"
import { cliIn } from "./cli-process.ts"

const { cli, dir } = cliIn("interlock-config-errors-")

const write = (name: string, text: string) => {
  writeFileSync(path.join(dir, name), text)
  return name
}

describe("config errors through the CLI", () => {
  it.live(
    "a trailing comma: line, column and the slip named; the file's text is not quoted",
    () =>
      Effect.gen(function*() {
        const name = write(
          "comma.json",
          `{\n  "servers": {},\n  "listen": { "token": "sk-secretsecretsecret0000" },\n  "policy": { "default": ` +
            `"allow", },\n}\n`
        )
        const { code, stdout, stderr } = yield* cli(["check", "--config", name])
        assert.strictEqual(code, 1)
        assert.strictEqual(stdout, "")
        assert.include(stderr, "comma.json: is not valid JSON at line 4, column 35")
        assert.include(stderr, "trailing comma")
        assert.notInclude(stderr, "sk-secret")
      }),
    60_000
  )

  it.live(
    "the config file is named alike by its syntax, validation and success messages",
    () =>
      Effect.gen(function*() {
        const broken = write("broken.json", `{ "servers": {}, }`)
        const invalid = write("invalid.json", JSON.stringify({ servers: {}, policy: { default: "perhaps" } }))
        const good = write("good.json", JSON.stringify({ servers: {} }))
        const relative = [
          (yield* cli(["check", "--config", broken])).stderr,
          (yield* cli(["check", "--config", path.join(dir, invalid)])).stderr,
          (yield* cli(["check", "--no-connect", "--config", `./${good}`])).stdout
        ]
        assert.include(relative[0], "invalid config at broken.json: is not valid JSON")
        assert.include(relative[1], "invalid config at invalid.json: policy.default")
        assert.include(relative[2], "Config OK: good.json\n")
      }),
    60_000
  )

  it("line and column count from 1; a comma before ] is named too", () => {
    assert.deepStrictEqual(lineColumn("ab\ncd", 0), { line: 1, column: 1 })
    assert.deepStrictEqual(lineColumn("ab\ncd", 4), { line: 2, column: 2 })
    const text = `[1,\n 2,\n]`
    let error: unknown
    try {
      JSON.parse(text)
    } catch (thrown) {
      error = thrown
    }
    assert.include(syntaxErrorWhere(error, text), "line 3, column 1: a comma before the closing bracket")
    assert.strictEqual(syntaxErrorWhere(new Error("no position"), `{"a": "x,}"`), "")
  })
})
