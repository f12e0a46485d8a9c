/** Decoding of model-level verdicts: anything outside an event's verdicts is a bad_return. */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { BAD, decodeAgentVerdict } from "../src/AgentHooks.ts"
import { AGENT_EVENTS } from "../src/index.ts"

const offered = [{ name: "add", serverId: "local", toolName: "add", parameters: { type: "object" } }]

describe("model-level verdicts", () => {
  it.effect.prop(
    "any JSON value that is not exactly a verdict is a bad_return, for every event",
    [Schema.Json],
    ([value]) =>
      Effect.sync(() => {
        for (const event of AGENT_EVENTS) {
          const decoded = decodeAgentVerdict(event, value, offered)
          if (decoded === BAD) continue
          // Whatever decoded must be one of the event's verdicts, with nothing extra.
          const record = value as Record<string, unknown>
          assert.isObject(record)
          assert.strictEqual(decoded._tag, record._tag)
        }
      })
  )

  it.effect.prop("an allow-like answer is never a verdict", [
    Schema.Struct({
      _tag: Schema.Literals(["Allow", "allow", "Approve", "Pass"]),
      reason: Schema.optional(Schema.String)
    })
  ], ([value]) =>
    Effect.sync(() => {
      for (const event of AGENT_EVENTS) assert.strictEqual(decodeAgentVerdict(event, value, offered), BAD)
    }))

  it.effect("each event accepts exactly its verdicts", () =>
    Effect.sync(() => {
      const cont = { _tag: "Continue" }
      const block = { _tag: "Block", reason: "r" }
      const deny = { _tag: "Deny", reason: "r" }
      const context = { _tag: "AddContext", text: "t" }
      const rewrite = { _tag: "Rewrite", tools: ["add"] }
      const accepts = (event: typeof AGENT_EVENTS[number], value: unknown) =>
        decodeAgentVerdict(event, value, offered) !== BAD
      for (const event of AGENT_EVENTS) assert.isTrue(accepts(event, cont))
      assert.deepStrictEqual(AGENT_EVENTS.filter((e) => accepts(e, block)), [
        "userPromptSubmit",
        "afterModelChunk",
        "stop",
        "subagentStart",
        "subagentStop",
        "preCompact"
      ])
      assert.deepStrictEqual(AGENT_EVENTS.filter((e) => accepts(e, deny)), ["beforeModel"])
      assert.deepStrictEqual(AGENT_EVENTS.filter((e) => accepts(e, context)), [
        "userPromptSubmit",
        "subagentStart",
        "preCompact"
      ])
      assert.deepStrictEqual(AGENT_EVENTS.filter((e) => accepts(e, rewrite)), ["beforeModel"])
      // afterModelChunk: Rewrite carries the replacement text; Hold is refused where the text ends.
      assert.deepStrictEqual(AGENT_EVENTS.filter((e) => accepts(e, { _tag: "Rewrite", text: "t" })), [
        "afterModelChunk"
      ])
      assert.deepStrictEqual(AGENT_EVENTS.filter((e) => accepts(e, { _tag: "Hold" })), ["afterModelChunk"])
      assert.isFalse(decodeAgentVerdict("afterModelChunk", { _tag: "Hold" }, offered, true) !== BAD)
      assert.isFalse(accepts("afterModelChunk", { _tag: "Rewrite", text: "t", tools: ["add"] }))
      // Extra keys, wrong payload types and invented tools are junk.
      assert.isFalse(accepts("stop", { _tag: "Block", reason: "r", extra: true }))
      assert.isFalse(accepts("stop", { _tag: "Block", reason: 1 }))
      assert.isFalse(accepts("beforeModel", { _tag: "Rewrite" }))
      assert.isFalse(accepts("beforeModel", { _tag: "Rewrite", tools: ["rm"] }))
      const throwing = new Proxy({}, {
        get: () => {
          throw new Error("trap")
        },
        ownKeys: () => {
          throw new Error("trap")
        }
      })
      assert.isFalse(accepts("stop", throwing))
    }))
})
