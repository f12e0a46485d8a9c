/**
 * @interlock/ai/vercel over the tools that the AI SDK's own MCP client (@ai-sdk/mcp) gives for a real MCP server
 * (server-everything over stdio), in `generateText` against the fake Chat Completions server: the policy denies by
 * default, and a secret the server answers with never reaches the model.
 */
import { createMCPClient } from "@ai-sdk/mcp"
import { StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio"
import { createOpenAI } from "@ai-sdk/openai"
import { assert, describe, it } from "@effect/vitest"
import { Policy } from "@interlock/core"
import { generateText, stepCountIs } from "ai"
import * as path from "node:path"
import { closeTools, interlockTools } from "../src/vercel/index.ts"
import { fakeOpenAi, toolMessages } from "./support/FakeOpenAi.ts"
import { closedAfterEach, redact, SECRET } from "./support/Governance.ts"

const open = closedAfterEach()

/** server-everything from npm, through the bin the workspace installs for it. */
const EVERYTHING = path.join(import.meta.dirname, "..", "..", "..", "node_modules", ".bin", "mcp-server-everything")

describe("interlockTools over @ai-sdk/mcp's tools", () => {
  it("a real server's tools: the allowed ones run, the rest are denied, and its secret is redacted", async () => {
    const mcp = await createMCPClient({
      transport: new StdioMCPTransport({
        command: process.execPath,
        args: [EVERYTHING],
        env: { ...(process.env as Record<string, string>), VAULT_TOKEN: SECRET }
      })
    })
    open.push(mcp)
    const tools = interlockTools(await mcp.tools(), {
      server: "everything",
      hooks: { postToolCall: [redact] },
      policy: Policy.rules({
        rules: [{ match: "everything/echo", decision: "allow" }, { match: "everything/get-env", decision: "allow" }],
        default: "deny"
      })
    })
    open.push({ close: () => closeTools(tools) })
    const fake = await fakeOpenAi((_body, index) =>
      index === 0
        ? {
          toolCalls: [
            { name: "echo", args: { message: "hi there" } },
            { name: "get-env", args: {} },
            { name: "get-sum", args: { a: 1, b: 2 } }
          ]
        }
        : { text: "done" }
    )
    open.push(fake)
    const model = createOpenAI({ baseURL: fake.url, apiKey: "test" }).chat("fake")
    await generateText({ model, tools, prompt: "go", stopWhen: stepCountIs(3) })
    const sent = toolMessages(fake.bodies[1]!)
    // The server's own blocks, as the SDK gives an MCP result to the model, not the result's JSON as text.
    assert.strictEqual(
      sent.find((m) => m.tool_call_id === "call_0_0")!.content,
      `[{"type":"text","text":"Echo: hi there"}]`
    )
    assert.include(sent.find((m) => m.tool_call_id === "call_0_1")!.content, "VAULT_TOKEN")
    assert.include(sent.find((m) => m.tool_call_id === "call_0_1")!.content, "[REDACTED]")
    assert.include(sent.find((m) => m.tool_call_id === "call_0_2")!.content, "denied by policy")
    for (const body of fake.bodies) assert.notInclude(body, SECRET)
  }, 30_000)
})
