import { assert, describe, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import { type Matcher, parseMatcher } from "../src/index.ts"

const ok = (input: unknown): Matcher => {
  const parsed = parseMatcher(input)
  if (Result.isFailure(parsed)) throw new Error(parsed.failure)
  return parsed.success
}

const segment = Schema.String.check(Schema.isPattern(/^[a-z][a-z0-9]{0,8}$/))

describe("matchers", () => {
  it("'*', all and any select every call at the global level", () => {
    for (const input of ["*", "all", "any", "ALL", "*/*"]) {
      const m = ok(input)
      assert.strictEqual(m.level, "global")
      assert.isTrue(m.test("anything", "at-all"))
    }
  })

  it("server/* is the server level; server/tool and bare tool are the tool level", () => {
    assert.strictEqual(ok("fs/*").level, "server")
    assert.strictEqual(ok("fs/read_*").level, "tool")
    assert.strictEqual(ok("read_file").level, "tool")
    assert.strictEqual(ok({ server: "fs", regex: /^read/ }).level, "tool")
  })

  it("globs stay within one segment and compare loosely", () => {
    const m = ok("fs/write_*")
    assert.isTrue(m.test("fs", "write_file"))
    assert.isTrue(m.test("FS", "Write-File"))
    assert.isFalse(m.test("fs", "read_file"))
    assert.isFalse(m.test("other", "write_file"))
    const uri = ok("files/file:///tmp/*")
    assert.isTrue(uri.test("files", "file:///tmp/a.txt"))
    assert.isFalse(uri.test("files", "file:///tmp/sub/a.txt"))
  })

  it("a bare tool name matches that tool on any server", () => {
    const m = ok("read_file")
    assert.isTrue(m.test("a", "read_file"))
    assert.isTrue(m.test("b", "Read.File"))
    assert.isFalse(m.test("a", "read_files"))
  })

  it("{ server, regex } tests the tool name, raw or loose, and ignores g/y state", () => {
    const m = ok({ server: "fs", regex: /^read_/g })
    assert.isTrue(m.test("fs", "read_file"))
    assert.isTrue(m.test("fs", "read_file"))
    assert.isTrue(m.test("FS", "Read-File"))
    assert.isFalse(m.test("web", "read_file"))
    assert.isTrue(ok({ server: "*", regex: "^x$" }).test("any", "x"))
  })

  it("a lone * selects a whole segment, URIs included; a partial glob stops at /", () => {
    assert.isTrue(ok("files/*").test("files", "file:///tmp/sub/a.txt"))
    assert.isFalse(ok("files/file:*").test("files", "file:///tmp"))
  })

  it("rejects bad matchers with a reason", () => {
    for (
      const input of ["", "  ", "/tool", "server/", 42, null, [], { server: "fs" }, { server: "", regex: "x" }, {
        server: "fs",
        regex: "("
      }, { server: "fs", regex: /x/, extra: 1 }]
    ) {
      const parsed = parseMatcher(input)
      assert.isTrue(Result.isFailure(parsed), `accepted ${JSON.stringify(input)}`)
    }
  })

  it.effect.prop(
    "levels and selection follow the pattern's shape",
    [segment, segment],
    ([server, tool]) =>
      Effect.sync(() => {
        assert.isTrue(ok(`${server}/*`).test(server.toUpperCase(), tool))
        assert.isTrue(ok(`${server}/${tool}`).test(server, tool.toUpperCase()))
        assert.isTrue(ok(tool).test(`${server}x`, tool))
        assert.isTrue(ok(`${server}/${tool.slice(0, 1)}*`).test(server, tool))
        assert.isFalse(ok(`${server}/${tool}`).test(`${server}x`, tool))
        assert.isTrue(ok(`${server}/*`).test(server, `${tool}/sub`))
        assert.isFalse(ok(`${server}/${tool}*`).test(server, `${tool}/sub`))
      })
  )

  it.effect.prop(
    "any input gives a matcher or a reason, never a throw",
    [Schema.Unknown],
    ([input]) =>
      Effect.sync(() => {
        const parsed = parseMatcher(input)
        assert.isTrue(Result.isSuccess(parsed) || typeof parsed.failure === "string")
      })
  )
})
