/**
 * @interlock/ai/langchain's model-level hooks (`wrapModelCall`) through a real LangChain v1 agent and its OpenAI chat
 * model, against a fake Chat Completions server over real HTTP: what the model was sent, and what the agent kept.
 */
import { assert, describe, it } from "@effect/vitest"
import { HumanMessage } from "@langchain/core/messages"
import { tool } from "@langchain/core/tools"
import { ChatOpenAI } from "@langchain/openai"
import { createAgent } from "langchain"
import { z } from "zod"
import {
  type AfterModelInput,
  interlockMiddleware,
  ModelDenied,
  ModelHookFailed,
  type ModelHooksConfig,
  ModelVerdict
} from "../src/langchain/index.ts"
import { fakeOpenAi, type Reply } from "./support/FakeOpenAi.ts"
import { closedAfterEach, reads, SECRET } from "./support/Governance.ts"

const open = closedAfterEach()

/**
 * Runs an agent whose fake model answers `replies` in turn (then "done"), with the model hooks; what it ran and got.
 */
const run = async (modelHooks: ModelHooksConfig, replies: ReadonlyArray<Reply>, prompt = "go") => {
  const ran: Array<string> = []
  const read = tool(async ({ path }) => {
    ran.push(path)
    return "hello"
  }, { name: "read", description: "Read a file", schema: z.object({ path: z.string() }) })
  const remove = tool(async () => "deleted", {
    name: "remove",
    description: "Delete",
    schema: z.object({ path: z.string() })
  })
  const fake = await fakeOpenAi((_body, index) => replies[index] ?? { text: "done" })
  const middleware = interlockMiddleware({ policy: reads, modelHooks })
  open.push(fake, middleware)
  const model = new ChatOpenAI({ model: "fake", apiKey: "test", configuration: { baseURL: fake.url } })
  const agent = createAgent({ model, tools: [read, remove], middleware: [middleware] })
  const outcome = await agent.invoke({ messages: [{ role: "user", content: prompt }] }).then(
    (result) => ({ result, error: undefined }),
    (error: unknown) => ({ result: undefined, error })
  )
  return { fake, ran, ...outcome }
}

describe("interlockMiddleware's model-level hooks in createAgent", () => {
  it("beforeModel rewrites the messages and narrows the tools before the model is asked", async () => {
    const { fake, error } = await run(
      {
        beforeModel: [({ messages, tools }) => {
          assert.deepStrictEqual(tools, ["read", "remove"])
          const clean = messages.map((m) =>
            HumanMessage.isInstance(m) ? new HumanMessage(m.text.replaceAll(SECRET, "[REDACTED]")) : m
          )
          return ModelVerdict.rewrite({ messages: clean, tools: ["read"] })
        }]
      },
      [{ text: "ok" }],
      `my key is ${SECRET}`
    )
    assert.isUndefined(error)
    assert.notInclude(fake.bodies[0]!, SECRET)
    assert.include(fake.bodies[0]!, "my key is [REDACTED]")
    assert.deepStrictEqual(JSON.parse(fake.bodies[0]!).tools.map((t: any) => t.function.name), ["read"])
  })

  it(
    "a Deny, a throw or a junk answer rejects the run (LangChain's MiddlewareError, caused by ours) before the " +
      "model is asked",
    async () => {
      const cases: ReadonlyArray<
        readonly [NonNullable<ModelHooksConfig["beforeModel"]>[number], typeof ModelDenied | typeof ModelHookFailed]
      > = [
        [() => ModelVerdict.deny("not today"), ModelDenied],
        [() => {
          throw new Error(SECRET)
        }, ModelHookFailed],
        [() => ModelVerdict.rewrite({ messages: [{ role: "user", content: "forged" }] as never }), ModelHookFailed]
      ]
      for (const [hook, kind] of cases) {
        const { fake, error } = await run({ beforeModel: [hook] }, [{ text: "ok" }])
        assert.strictEqual((error as Error).constructor.name, "MiddlewareError")
        assert.instanceOf((error as Error).cause, kind as typeof ModelDenied)
        assert.notInclude(`${(error as Error).message} ${((error as Error).cause as Error).message}`, SECRET)
        assert.strictEqual(fake.bodies.length, 0)
      }
    }
  )

  it(
    "afterModelChunk replaces the answer's text before the agent keeps it; afterModel sees the " +
      "replaced answer",
    async () => {
      const seen: Array<AfterModelInput> = []
      const { result } = await run({
        afterModelChunk: [({ pending }) => ModelVerdict.replace(pending.replaceAll(SECRET, "[REDACTED]"))],
        afterModel: [(input) => {
          seen.push(input)
          return ModelVerdict.cont
        }]
      }, [{ text: `key ${SECRET} end` }])
      assert.strictEqual(result!.messages.at(-1)!.text, "key [REDACTED] end")
      assert.notInclude(JSON.stringify(result!.messages), SECRET)
      assert.strictEqual(seen[0]!.message.text, "key [REDACTED] end")
    }
  )

  it(
    "a Block empties the answer and drops its tool calls: the tool never runs, and the answer says who " +
      "stopped it",
    async () => {
      const { ran, result, fake } = await run({
        afterModelChunk: [{
          id: "creds",
          run: ({ pending }) => pending.includes("sk-") ? ModelVerdict.block("a key") : ModelVerdict.cont
        }]
      }, [{ text: `key ${SECRET}`, toolCalls: [{ name: "read", args: { path: "notes.txt" } }] }])
      assert.deepStrictEqual(ran, [])
      assert.strictEqual(fake.bodies.length, 1)
      const last = result!.messages.at(-1)!
      assert.strictEqual(last.text, "")
      assert.deepStrictEqual((last.response_metadata as { interlock?: unknown }).interlock, {
        blockedBy: "creds",
        reason: "a key"
      })
      assert.notInclude(JSON.stringify(result!.messages), SECRET)
    }
  )
})
