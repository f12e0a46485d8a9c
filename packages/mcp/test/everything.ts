/** The checks run against server-everything, over stdio and over Streamable HTTP alike. */
import { assert } from "@effect/vitest"
import { ToolCalls } from "@interlock/core"
import { Effect } from "effect"
import { McpHub } from "../src/index.ts"
import { eventually } from "./helpers.ts"

/** Calls, lists, reads, gets and follows progress on server-everything registered as `serverId`. */
export const exerciseEverything = (serverId: string) =>
  Effect.gen(function*() {
    const calls = yield* ToolCalls
    const echo = yield* calls.callTool({ serverId, name: "echo", args: { message: "over the wire" } })
    assert.strictEqual(echo.text, "Echo: over the wire")
    const sum = yield* calls.callTool({ serverId, name: "get-sum", args: { a: 2, b: 40 } })
    assert.include(sum.text, "42")
    // server-everything sends tools/list_changed right after initialize (it adds tools then); the
    // hub refreshes before handing the session out, so no call sees an unknown (stale) list.
    assert.isFalse(sum.receipt?.toolChanged)
    const tools = yield* calls.listTools(serverId)
    const names = tools.map((tool) => tool.name)
    assert.includeMembers(names, ["echo", "get-sum", "trigger-long-running-operation"])
    assert.isTrue(tools.every((tool) => tool.serverId === serverId && /^[0-9a-f]{64}$/.test(tool.fingerprint)))
    const annotated = tools.find((tool) => tool.name === "trigger-long-running-operation")
    assert.strictEqual(annotated?.annotations?.readOnlyHint, true)
    const resource = yield* calls.readResource(serverId, "demo://resource/dynamic/text/7")
    assert.match(String(resource.contents[0].text), /^Resource 7: /)
    const prompt = yield* calls.getPrompt(serverId, "args-prompt", { city: "Lyon" })
    assert.deepStrictEqual(prompt.messages[0].content, { type: "text", text: "What's weather in Lyon?" })
    const progress: Array<number> = []
    const long = yield* calls.callTool(
      { serverId, name: "trigger-long-running-operation", args: { duration: 0.3, steps: 3 } },
      { onProgress: (p) => progress.push(p.progress) }
    )
    assert.include(long.text, "Long running operation completed")
    // The first two notifications are 100 ms before the answer and always arrive. The last one is
    // written just before the answer, and the SDK client sometimes drops it after resolving the call.
    yield* eventually(() => progress.length >= 2)
    assert.deepStrictEqual(progress, [1, 2, 3].slice(0, progress.length))
    const hub = yield* McpHub
    assert.match(hub.status(serverId)?.era ?? "", /^legacy\/20\d\d-\d\d-\d\d$/)
    // server-everything (SDK 1) answers an unknown tool with an error result, not a JSON-RPC error.
    const wrong = yield* calls.callTool({ serverId, name: "no-such-tool" })
    assert.isTrue(wrong.isError)
    assert.strictEqual(wrong.receipt?.outcome, "tool_error")
  })
