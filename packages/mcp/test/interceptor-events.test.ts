import { assert, describe, it } from "@effect/vitest"
import { Tool, ToolCall } from "@interlock/core"
import {
  callMutated,
  promptMutated,
  readMutated,
  resultMutated,
  selects,
  toolsMutated,
  toolsPayload
} from "../src/InterceptorEvents.ts"

const call = new ToolCall({ serverId: "fs", name: "read_file", args: { path: "a" }, callId: "c1" })
const tools = [
  new Tool({ serverId: "fs", name: "read_file", inputSchema: { type: "object" }, description: "Reads" }),
  new Tool({ serverId: "fs", name: "write_file", inputSchema: { type: "object" } })
]

describe("what a mutated payload may become", () => {
  it("a call's new arguments are a Rewrite echoing its name; a new name or another key is not", () => {
    assert.deepStrictEqual(callMutated(call, { name: "read_file", arguments: { path: "b" } }), {
      _tag: "Apply",
      verdict: { _tag: "Rewrite", args: { path: "b" }, name: "read_file" }
    })
    assert.strictEqual(callMutated(call, { name: "fs__write_file", arguments: {} })._tag, "Refused")
    assert.strictEqual(callMutated(call, { name: "read_file", arguments: {}, server: "other" })._tag, "Junk")
    assert.strictEqual(callMutated(call, "read_file")._tag, "Junk")
  })

  it("a prompt keeps its name; a read cannot be rewritten", () => {
    assert.strictEqual(promptMutated("greet", { name: "greet", arguments: { who: "x" } })._tag, "Apply")
    assert.strictEqual(promptMutated("greet", { name: "other", arguments: {} })._tag, "Refused")
    assert.deepStrictEqual(readMutated("file:///a", { uri: "file:///a" }), {
      _tag: "Apply",
      verdict: { _tag: "Continue" }
    })
    assert.strictEqual(readMutated("file:///a", { uri: "file:///b" })._tag, "Refused")
  })

  it("a listing may drop or redescribe tools, never add or rename one", () => {
    const listed = toolsPayload(tools) as { tools: Array<Record<string, unknown>> }
    assert.deepStrictEqual(listed.tools[0], {
      name: "read_file",
      description: "Reads",
      inputSchema: { type: "object" }
    })
    const kept = toolsMutated(tools, { tools: [{ ...listed.tools[0], description: "Reads files" }] })
    assert.strictEqual(kept._tag, "Apply")
    const verdict = kept._tag === "Apply" ? kept.verdict : undefined
    assert.deepStrictEqual(
      verdict?._tag === "ReplaceTools" ? verdict.tools.map((t) => [t.serverId, t.name, t.description]) : [],
      [["fs", "read_file", "Reads files"]]
    )
    assert.strictEqual(toolsMutated(tools, { tools: [{ ...listed.tools[0], name: "delete_all" }] })._tag, "Refused")
  })

  it("a result must be a result", () => {
    assert.strictEqual(resultMutated({ content: [{ type: "text", text: "x" }], isError: false })._tag, "Apply")
    assert.strictEqual(resultMutated({ content: "x" })._tag, "Junk")
  })
})

describe("event patterns (SEP §Hooks, Wildcards)", () => {
  it("match the event, all events, one phase's, or a namespace", () => {
    assert.isTrue(selects("tools/call", "request", "tools/call"))
    assert.isTrue(selects("*", "response", "tools/call"))
    assert.isTrue(selects("*/request", "request", "prompts/get"))
    assert.isFalse(selects("*/request", "response", "prompts/get"))
    assert.isTrue(selects("tools/*", "response", "tools/list"))
    assert.isFalse(selects("tools/*", "request", "resources/read"))
    assert.isFalse(selects("tools/call", "request", "tools/list"))
  })
})
