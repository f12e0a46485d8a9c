/**
 * An agent whose tools come from a real MCP server (server-everything from npm, spawned over
 * stdio) through @interlock/mcp's hub, driven by the fake OpenAI server over real HTTP.
 */
import { assert, describe, it } from "@effect/vitest"
import { Policy, Verdict } from "@interlock/core"
import { McpHub } from "@interlock/mcp"
import { Effect } from "effect"
import { Agent } from "../src/index.ts"
import { fake, openAi, text, toolCalls } from "./support/FakeLlm.ts"

const EVERYTHING = new URL("../../../node_modules/.bin/mcp-server-everything", import.meta.url).pathname

describe("MCP tools through the hub", () => {
  it.live(
    "the model calls server-everything's tools through the pipeline; a denied one never reaches the server",
    () =>
      Effect.gen(function*() {
        const server = yield* fake((body) => {
          const results = body.messages.filter((m: any) => m.role === "tool")
          if (results.length > 0) return text(`the sum is in: ${results.map((m: any) => m.content).join(" | ")}`)
          const offered = (body.tools ?? []).map((t: any) => t.function.name)
          if (!offered.includes("echo") || !offered.includes("get-sum")) return text("tools missing")
          return toolCalls([
            { id: "c1", name: "echo", args: { message: "hello from the model" } },
            { id: "c2", name: "get-sum", args: { a: 2, b: 40 } },
            { id: "c3", name: "get-env", args: {} }
          ])
        })
        const seen: Array<string> = []
        const result = yield* Agent.run("use the tools", {
          model: openAi(server),
          tools: McpHub.layer({
            servers: { everything: { stdio: { command: process.execPath, args: [EVERYTHING] } } }
          }),
          policy: Policy.rules({
            rules: [{ match: "everything/echo", decision: "allow" }, {
              match: "everything/get-sum",
              decision: "allow"
            }],
            default: "deny"
          }),
          hooks: {
            preToolCall: [{
              match: "everything/*",
              run: (call) => {
                seen.push(`${call.serverId}/${call.name}`)
                return Verdict.continue
              }
            }]
          }
        })
        assert.strictEqual(result.status, "done")
        const [echo, sum, env] = result.toolCalls
        assert.deepStrictEqual([echo.output, echo.isError], ["Echo: hello from the model", false])
        assert.include(sum.output, "42")
        assert.isTrue(env.isError)
        assert.include(env.output, "denied by policy")
        assert.isFalse(env.receipt?.sent)
        assert.isTrue(echo.receipt?.sent)
        assert.strictEqual(echo.receipt?.serverId, "everything")
        assert.deepStrictEqual(seen, ["everything/echo", "everything/get-sum", "everything/get-env"])
        assert.include(result.text, "Echo: hello from the model")
        // The model was offered the server's tools with their JSON Schemas.
        const offered = server.requests[0].body.tools.find((t: any) => t.function.name === "get-sum")
        assert.deepStrictEqual(Object.keys(offered.function.parameters.properties).sort(), ["a", "b"])
      }),
    { timeout: 60_000 }
  )
})
