import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { BAD_RETURN, type DecodeInput, decodeVerdict } from "../src/hooks/VerdictDecoder.ts"
import { Receipt, Tool, ToolResult, Verdict } from "../src/index.ts"
import { makeToolCall } from "../src/model/ToolCall.ts"

const call = makeToolCall({ serverId: "s", name: "t", args: { a: 1 }, callId: "c" })
const tools = [
  new Tool({ serverId: "s", name: "read_file", inputSchema: {} }),
  new Tool({ serverId: "s", name: "write", inputSchema: {} })
]
const inputs: ReadonlyArray<DecodeInput> = [
  { event: "preToolCall", call },
  { event: "postToolCall" },
  { event: "toolCallFailed" },
  { event: "toolsListed", tools },
  { event: "resourceRead" },
  { event: "promptGet", name: "p" }
]
const result = { content: [{ type: "text", text: "x" }] }

describe("verdict decoding", () => {
  it("each event accepts exactly its verdicts", () => {
    const verdicts = {
      Continue: Verdict.continue,
      Rewrite: Verdict.rewrite({ args: { a: 2 } }),
      Deny: Verdict.deny("no"),
      Halt: Verdict.halt(result),
      Replace: Verdict.replace(result),
      ReplaceTools: Verdict.replaceTools([tools[0]]),
      Recover: Verdict.recover(result)
    }
    const accepted: Record<string, Array<string>> = {}
    for (const input of inputs) {
      accepted[input.event] = Object.entries(verdicts)
        .filter(([, v]) => decodeVerdict(input, undefined, v) !== BAD_RETURN)
        .map(([k]) => k)
    }
    assert.deepStrictEqual(accepted, {
      preToolCall: ["Continue", "Rewrite", "Deny", "Halt"],
      postToolCall: ["Continue", "Replace"],
      toolCallFailed: ["Continue", "Recover"],
      toolsListed: ["Continue", "ReplaceTools"],
      resourceRead: ["Continue", "Deny"],
      promptGet: ["Continue", "Rewrite", "Deny"]
    })
  })

  it(
    "a Continue's note is kept, for every event and kind, within 256 characters of text; anything else is " +
      "bad_return",
    () => {
      for (const input of inputs) {
        for (const kind of [undefined, "guard", "transform", "observe"] as const) {
          assert.deepStrictEqual(decodeVerdict(input, kind, Verdict.note("audit: invalid")), {
            _tag: "Continue",
            note: "audit: invalid"
          })
          assert.deepStrictEqual(decodeVerdict(input, kind, Verdict.note("x".repeat(256))), {
            _tag: "Continue",
            note: "x".repeat(256)
          })
          assert.strictEqual(decodeVerdict(input, kind, Verdict.note("x".repeat(257))), BAD_RETURN)
          for (const junk of [1, null, { text: "x" }, ["x"]]) {
            assert.strictEqual(decodeVerdict(input, kind, { _tag: "Continue", note: junk }), BAD_RETURN)
          }
        }
      }
    }
  )

  it(
    "kinds narrow the verdicts: guard denies or halts, transform rewrites/replaces/recovers, " +
      "observe continues",
    () => {
      const pre = inputs[0]
      assert.notStrictEqual(decodeVerdict(pre, "guard", Verdict.deny("x")), BAD_RETURN)
      assert.strictEqual(decodeVerdict(pre, "guard", Verdict.rewrite({ args: {} })), BAD_RETURN)
      assert.strictEqual(decodeVerdict(pre, "transform", Verdict.deny("x")), BAD_RETURN)
      assert.notStrictEqual(decodeVerdict(pre, "transform", Verdict.rewrite({ args: {} })), BAD_RETURN)
      assert.strictEqual(decodeVerdict(pre, "observe", Verdict.halt(result)), BAD_RETURN)
      assert.notStrictEqual(decodeVerdict(pre, "observe", Verdict.continue), BAD_RETURN)
    }
  )

  it("payloads are checked: results must be MCP results, listed tools must come from the listing", () => {
    assert.strictEqual(decodeVerdict(inputs[1], undefined, Verdict.replace({ content: "x" } as never)), BAD_RETURN)
    assert.strictEqual(decodeVerdict(inputs[0], undefined, { _tag: "Deny", reason: 5 }), BAD_RETURN)
    assert.strictEqual(decodeVerdict(inputs[0], undefined, { _tag: "Deny", reason: "x", allow: true }), BAD_RETURN)
    assert.strictEqual(decodeVerdict(inputs[0], undefined, { _tag: "Rewrite" }), BAD_RETURN)
    assert.strictEqual(
      decodeVerdict(
        inputs[3],
        undefined,
        Verdict.replaceTools([new Tool({ serverId: "other", name: "read_file", inputSchema: {} })])
      ),
      BAD_RETURN
    )
    // Issue 10: a listing hook may not rename a tool, not even to a loosely equal name.
    assert.strictEqual(
      decodeVerdict(
        inputs[3],
        undefined,
        Verdict.replaceTools([new Tool({ serverId: "s", name: "Read-File", inputSchema: {} })])
      ),
      BAD_RETURN
    )
    assert.notStrictEqual(
      decodeVerdict(
        inputs[3],
        undefined,
        Verdict.replaceTools([
          new Tool({ serverId: "s", name: "read_file", inputSchema: {}, description: "annotated" })
        ])
      ),
      BAD_RETURN
    )
    assert.strictEqual(
      decodeVerdict(inputs[5], undefined, Verdict.rewrite({ args: { a: 1 }, name: "other" })),
      BAD_RETURN
    )
  })

  it("a hook cannot forge a receipt: a result passed on loses its own, and a plain one's is dropped", () => {
    const receipt = new Receipt({ callId: "1", serverId: "s", name: "t", hooks: [], sent: true, outcome: "ok" })
    const attached = new ToolResult({ content: [{ type: "text", text: "x" }] }).withReceipt(receipt)
    const plain = { content: [], receipt: Schema.encodeSync(Receipt)(receipt) }
    for (const result of [attached, plain]) {
      const decoded = decodeVerdict(inputs[1], undefined, { _tag: "Replace", result })
      assert.notStrictEqual(decoded, BAD_RETURN)
      assert.strictEqual(decoded !== BAD_RETURN && decoded._tag, "Replace")
      const replaced = (decoded as { readonly result: ToolResult }).result
      assert.instanceOf(replaced, ToolResult)
      assert.strictEqual(replaced.receipt, undefined)
      assert.isFalse(Object.hasOwn(replaced, "receipt"))
    }
  })

  it("a rewrite builds a new call whose digest follows the new args", () => {
    const decoded = decodeVerdict(
      inputs[0],
      undefined,
      Verdict.rewrite({ args: { a: 2 }, serverId: "s", name: "t", callId: "c" })
    )
    assert.notStrictEqual(decoded, BAD_RETURN)
    if (decoded === BAD_RETURN || decoded._tag !== "Rewrite") return
    assert.deepStrictEqual(decoded.call.args, { a: 2 })
    assert.strictEqual(decoded.call.callId, "c")
    assert.notStrictEqual(decoded.call.digest, call.digest)
  })

  it.effect.prop(
    "anything that is not a tagged verdict is a bad_return for every event and kind",
    [Schema.Unknown],
    ([junk]) =>
      Effect.sync(() => {
        const tagged = typeof junk === "object" && junk !== null && "_tag" in junk
        if (tagged) return
        for (const input of inputs) {
          for (const kind of [undefined, "guard", "transform", "observe"] as const) {
            assert.strictEqual(decodeVerdict(input, kind, junk), BAD_RETURN)
          }
        }
      })
  )

  it.effect.prop(
    "objects with any tag and any payload decode to a verdict of the event, or to bad_return, never throw",
    [Schema.Struct({
      _tag: Schema.Literals(["Continue", "Allow", "Deny", "Halt", "Rewrite", "Replace", "Recover", "Ask", "allow"]),
      reason: Schema.optional(Schema.Unknown),
      args: Schema.optional(Schema.Unknown),
      result: Schema.optional(Schema.Unknown),
      tools: Schema.optional(Schema.Unknown)
    })],
    ([value]) =>
      Effect.sync(() => {
        for (const input of inputs) {
          const decoded = decodeVerdict(input, undefined, value)
          if (decoded === BAD_RETURN) continue
          assert.notInclude(["Allow", "Ask", "allow"], decoded._tag)
        }
      })
  )
})
