/**
 * Interlock.client over a real MCP server: server-everything spawned over stdio by McpTransport,
 * driven through the Promise API (hooks, policy, receipts, typed errors, close).
 */
import { assert, describe, it } from "@effect/vitest"
import { ClientClosed, Denied, Interlock, InterlockError, Policy, Verdict } from "@interlock/core"
import { RecordingTransport } from "@interlock/core/testing"
import { McpTransport } from "../src/index.ts"
import { alive, descendants, EVERYTHING, NODE, noProcessLeft } from "./helpers.ts"

const policy = Policy.rules({
  rules: [
    { id: "echo-ok", match: "everything/echo", decision: "allow" },
    { id: "sum-ok", match: "everything/get-sum", decision: "allow" },
    { id: "long-ok", match: "everything/trigger-long-running-operation", decision: "allow" }
  ],
  default: "deny"
})

/** A Promise client on a fresh server-everything child, with every call that reached it recorded. */
const start = () => {
  const recording = RecordingTransport.record(McpTransport.stdio("everything", { command: NODE, args: [EVERYTHING] }))
  const client = Interlock.client({
    client: "promise-app",
    hooks: {
      preToolCall: [{
        match: "everything/echo",
        id: "sign",
        run: (call) => Verdict.rewrite({ args: { message: `${String(call.args.message)} (signed)` } })
      }]
    },
    policy,
    transport: recording.layer
  })
  return { client, recording }
}

describe("Interlock.client over server-everything on stdio", () => {
  it(
    "calls through the hook and the policy, denies what the policy denies before it reaches the " +
      "server, and lists",
    async () => {
      const { client, recording } = start()
      try {
        const echo = await client.callTool({ serverId: "everything", name: "echo", args: { message: "hi" } })
        assert.strictEqual(echo.text, "Echo: hi (signed)")
        assert.strictEqual(echo.receipt?.outcome, "ok")
        assert.deepStrictEqual(echo.receipt?.policy, { decision: "allow", rule: "echo-ok" })
        assert.deepStrictEqual(echo.receipt?.hooks.map((run) => [run.id, run.status]), [["sign", "rewrite"]])
        assert.match(echo.receipt?.digest ?? "", /^[0-9a-f]{64}$/)
        const denied = await client.callTool({ serverId: "everything", name: "get-env", args: {} }).then(
          () => assert.fail("get-env was allowed"),
          (error: unknown) => error
        )
        assert.instanceOf(denied, Denied)
        assert.isTrue(denied instanceof InterlockError)
        assert.strictEqual((denied as Denied)._tag, "Denied")
        assert.isFalse((denied as Denied).receipt?.sent)
        assert.deepStrictEqual(recording.calls.map((call) => [call.name, call.args]), [["echo", {
          message: "hi (signed)"
        }]])
        const sums = await Promise.all(
          [1, 2, 3, 4, 5].map((n) =>
            client.callTool({ serverId: "everything", name: "get-sum", args: { a: n, b: 100 } })
          )
        )
        assert.deepStrictEqual(sums.map((sum) => sum.text.match(/\d+(?=\D*$)/)?.[0]), [
          "101",
          "102",
          "103",
          "104",
          "105"
        ])
        const tools = await client.listTools("everything")
        assert.includeMembers(tools.map((tool) => tool.name), ["echo", "get-sum", "get-env"])
        const resource = await client.readResource("everything", "demo://resource/dynamic/text/3")
        assert.match(String(resource.contents[0]?.text), /^Resource 3: /)
        const prompt = await client.getPrompt("everything", "args-prompt", { city: "Lyon" })
        assert.deepStrictEqual(prompt.messages[0]?.content, { type: "text", text: "What's weather in Lyon?" })
      } finally {
        await client.close()
      }
    }
  )

  it("close ends a call in flight with ClientClosed, ends the server process, and refuses later calls", async () => {
    const before = new Set(descendants())
    const { client, recording } = start()
    await client.callTool({ serverId: "everything", name: "echo", args: { message: "up" } })
    const spawned = descendants().filter((pid) => !before.has(pid))
    assert.isAbove(spawned.length, 0)
    const long = client.callTool({
      serverId: "everything",
      name: "trigger-long-running-operation",
      args: { duration: 60, steps: 60 }
    }).then(
      () => "resolved",
      (error: unknown) => error
    )
    while (recording.calls.length < 2) await new Promise((resolve) => setTimeout(resolve, 5))
    await client.close()
    const ended = await long
    assert.instanceOf(ended, ClientClosed)
    assert.deepStrictEqual(spawned.filter(alive), [])
    const later = await client.callTool({ serverId: "everything", name: "echo", args: { message: "again" } }).then(
      () => "resolved",
      (error: unknown) => error
    )
    assert.instanceOf(later, ClientClosed)
    assert.strictEqual(recording.calls.length, 2)
  })

  it.live("leaves no process behind", noProcessLeft)
})
