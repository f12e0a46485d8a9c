/** The host's tool_use_id the gateway audits from a tools/call's `_meta`: only an id-like string passes. */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { hostToolUseId } from "../src/calls/HostClient.ts"

describe("hostToolUseId", () => {
  it("takes Claude Code's claudecode/toolUseId; anything else is dropped", () => {
    assert.strictEqual(hostToolUseId({ "claudecode/toolUseId": "toolu_01AbC-9", progressToken: 1 }), "toolu_01AbC-9")
    for (
      const meta of [undefined, {}, { "claudecode/toolUseId": 42 }, { "claudecode/toolUseId": "" }, {
        "claudecode/toolUseId": "x".repeat(201)
      }, { "claudecode/toolUseId": "a b" }]
    ) {
      assert.isUndefined(hostToolUseId(meta), JSON.stringify(meta))
    }
  })

  it.effect.prop(
    "whatever the client sends, what passes is letters, digits, _ and - only",
    [Schema.String],
    ([id]) =>
      Effect.sync(() => {
        const taken = hostToolUseId({ "claudecode/toolUseId": id })
        assert.isTrue(taken === undefined || (taken === id && /^[A-Za-z0-9_-]{1,200}$/.test(taken)))
      })
  )
})
