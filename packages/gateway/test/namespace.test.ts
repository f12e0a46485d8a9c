import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { makeNamespace } from "../src/governance/Namespace.ts"

// Server names as the config allows them: no "__" and no "/".
const ServerName = Schema.String.check(Schema.isPattern(/^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/))
const ToolName = Schema.NonEmptyString

describe("namespacing", () => {
  it.effect.prop("with several servers, resolve(expose(server, tool)) gives back the server and tool", [
    ServerName,
    ServerName,
    ToolName
  ], ([a, b, tool]) =>
    Effect.sync(() => {
      if (a === b) return
      const ns = makeNamespace([a, b], "auto")
      assert.isTrue(ns.prefixed)
      assert.deepStrictEqual(ns.resolve(ns.expose(b, tool)), { serverId: b, name: tool })
      assert.deepStrictEqual(ns.resolve(ns.expose(a, tool)), { serverId: a, name: tool })
    }))

  it.effect.prop(
    "with one server and auto, names pass through unchanged",
    [ServerName, ToolName],
    ([server, tool]) =>
      Effect.sync(() => {
        const ns = makeNamespace([server], "auto")
        assert.strictEqual(ns.expose(server, tool), tool)
        assert.deepStrictEqual(ns.resolve(tool), { serverId: server, name: tool })
      })
  )

  it("always prefixes one server; never routes by owner; unknown prefixes resolve to nothing", () => {
    const always = makeNamespace(["fs"], "always")
    assert.strictEqual(always.expose("fs", "read_file"), "fs__read_file")
    assert.isUndefined(always.resolve("other__read_file"))
    assert.isUndefined(always.resolve("read_file"))
    const never = makeNamespace(["a", "b"], "never")
    never.own("b", "only_b")
    never.own("a", "only_b") // the first server to list a name keeps it
    assert.strictEqual(never.expose("b", "only_b"), "only_b")
    assert.deepStrictEqual(never.resolve("only_b"), { serverId: "b", name: "only_b" })
    assert.isUndefined(never.resolve("nobody"))
  })
})
