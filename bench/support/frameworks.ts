/**
 * The frameworks' scripted models and the tool the agent benches call, shared by agent.ts and adapters.ts: Vercel's
 * MockLanguageModelV4 and LangChain's FakeToolCallingModel, each asking for `k` calls of `add` and then answering.
 */
import { Usage } from "@openai/agents"
import { MockLanguageModelV4 } from "ai/test"
import { type AgentMiddleware, createAgent, FakeToolCallingModel, tool } from "langchain"
import { z } from "zod"

/** The k tool calls of a run's first turn. */
export const calls = (k: number) => Array.from({ length: k }, (_, i) => ({ id: `c${i}`, a: i, b: 1 }))

/** The tool's body. */
export const add = ({ a, b }: { a: number; b: number }) => String(a + b)

const usage = {
  inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 2, text: 2, reasoning: undefined }
}

/** A Vercel model that asks for k calls of `add`, then, once it has the results, answers "done". */
export const vercelModel = (k: number) =>
  new MockLanguageModelV4({
    doGenerate: async (options: any) => {
      const last = options.prompt[options.prompt.length - 1]
      return last.role === "tool"
        ? {
          content: [{ type: "text", text: "done" }],
          finishReason: { unified: "stop", raw: "stop" },
          usage,
          warnings: []
        }
        : {
          content: calls(k).map((c) => ({
            type: "tool-call",
            toolCallId: c.id,
            toolName: "add",
            input: JSON.stringify({ a: c.a, b: c.b })
          })),
          finishReason: { unified: "tool-calls", raw: "tool_calls" },
          usage,
          warnings: []
        }
    }
  } as any)

/** A LangChain model that asks for k calls of `add`, then answers. */
export const langchainModel = (k: number) =>
  new FakeToolCallingModel({
    toolCalls: [calls(k).map((c) => ({ id: c.id, name: "add", args: { a: c.a, b: c.b } })), []]
  })

/** One run of a LangChain agent over {@link langchainModel} with the `add` tool and `middleware`. */
export const langchainRun = (k: number, middleware: ReadonlyArray<AgentMiddleware>) => {
  const agent = createAgent({
    model: langchainModel(k),
    tools: [
      tool(async (input: { a: number; b: number }) => add(input), {
        name: "add",
        description: "Adds two numbers",
        schema: z.object({ a: z.number(), b: z.number() })
      })
    ],
    middleware: [...middleware]
  })
  return () => agent.invoke({ messages: [{ role: "user", content: "go" }] })
}

/** An OpenAI Agents model that asks for k calls of `add`, then, once it has the results, answers "done". */
export const openaiModel = (k: number) => ({
  async getResponse(request: any) {
    const input = Array.isArray(request.input) ? request.input : []
    const answered = input.some((item: any) => item.type === "function_call_result")
    const output = answered
      ? [{
        type: "message",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "done" }]
      }]
      : calls(k).map((c) => ({
        type: "function_call",
        callId: c.id,
        name: "add",
        arguments: JSON.stringify({ a: c.a, b: c.b }),
        status: "completed"
      }))
    return { usage: new Usage({ requests: 1, inputTokens: 3, outputTokens: 2, totalTokens: 5 }), output }
  },
  // biome-ignore lint/correctness/useYield: the Model interface needs a stream; this bench never asks for one
  async *getStreamedResponse() {
    throw new Error("not used")
  }
})
