/**
 * @interlock/ai/vercel's model middleware through the real Vercel AI SDK (`wrapLanguageModel`, `generateText`,
 * `streamText`) and its OpenAI provider, against a fake Chat Completions server over real HTTP: what the model was
 * sent, what the caller saw, and what a failing hook let through (nothing).
 */
import { createOpenAI } from "@ai-sdk/openai"
import { assert, describe, it } from "@effect/vitest"
import { ConfigError } from "@interlock/core"
import { generateText, stepCountIs, streamText, tool, wrapLanguageModel } from "ai"
import { Effect } from "effect"
import { z } from "zod"
import {
  type AfterModelChunkInput,
  interlockModelMiddleware,
  ModelDenied,
  ModelHookFailed,
  type ModelHooksConfig,
  ModelVerdict
} from "../src/vercel/index.ts"
import { fakeOpenAi, type Reply } from "./support/FakeOpenAi.ts"
import { closedAfterEach, SECRET } from "./support/Governance.ts"

const open = closedAfterEach()

/** The fake answers with its text in two deltas: this one splits the secret between them. */
const LEAKY = `key ${SECRET} end`

/** A model behind the middleware, answering `replies` in turn (then "done"). */
const model = async (hooks: ModelHooksConfig, replies: ReadonlyArray<Reply> = [{ text: LEAKY }]) => {
  const fake = await fakeOpenAi((_body, index) => replies[index] ?? { text: "done" })
  open.push(fake)
  const base = createOpenAI({ baseURL: fake.url, apiKey: "test" }).chat("fake")
  return { fake, model: wrapLanguageModel({ model: base, middleware: interlockModelMiddleware({ hooks }) }) }
}

/** Whether `text` ends with a non-empty beginning of the secret (so the next delta may finish it). */
const endsInPrefix = (text: string): boolean => {
  for (let n = Math.min(SECRET.length - 1, text.length); n > 0; n--) {
    if (text.endsWith(SECRET.slice(0, n))) return true
  }
  return false
}

/** An afterModelChunk hook that catches the secret across deltas: holds a possible beginning, replaces it whole. */
const redactChunks = ({ pending, final }: AfterModelChunkInput) =>
  pending.includes(SECRET)
    ? ModelVerdict.replace(pending.replaceAll(SECRET, "[REDACTED]"))
    : !final && endsInPrefix(pending)
    ? ModelVerdict.hold
    : ModelVerdict.cont

const sentMessages = (raw: string): Array<{ role: string; content: unknown }> => JSON.parse(raw).messages

const add = tool({ inputSchema: z.object({ a: z.number() }), execute: async ({ a }) => a + 1 })
const remove = tool({ inputSchema: z.object({ path: z.string() }), execute: async () => "deleted" })

describe("interlockModelMiddleware", () => {
  it("beforeModel rewrites the prompt and narrows the tools before the provider sends them", async () => {
    const { fake, model: llm } = await model({
      beforeModel: [({ messages, tools }) => {
        assert.deepStrictEqual(tools, ["add", "remove"])
        const clean = messages.map((m) =>
          m.role === "user"
            ? {
              ...m,
              content: m.content.map((p) =>
                p.type === "text" ? { ...p, text: p.text.replaceAll(SECRET, "[REDACTED]") } : p
              )
            }
            : m
        )
        return ModelVerdict.rewrite({ messages: clean, tools: ["add"] })
      }]
    }, [{ text: "ok" }])
    const result = await generateText({ model: llm, tools: { add, remove }, prompt: `my key is ${SECRET}` })
    assert.strictEqual(result.text, "ok")
    assert.notInclude(fake.bodies[0]!, SECRET)
    assert.include(JSON.stringify(sentMessages(fake.bodies[0]!)), "my key is [REDACTED]")
    assert.deepStrictEqual(JSON.parse(fake.bodies[0]!).tools.map((t: any) => t.function.name), ["add"])
  })

  it("a beforeModel Deny rejects the call with its reason, and the provider is never asked", async () => {
    const { fake, model: llm } = await model({
      beforeModel: [{ id: "no-secrets", run: () => ModelVerdict.deny("no") }]
    })
    const error = await generateText({ model: llm, prompt: "hi" }).then(() => undefined, (e: unknown) => e)
    assert.instanceOf(error, ModelDenied)
    assert.strictEqual((error as ModelDenied).hookId, "no-secrets")
    assert.strictEqual(fake.bodies.length, 0)
  })

  it(
    "a beforeModel hook that throws, hangs or answers junk fails closed, and the provider is " +
      "never asked",
    async () => {
      const hooks = [
        () => {
          throw new Error(SECRET)
        },
        { run: () => Effect.never, timeout: "50 millis" },
        () => ({ _tag: "Allow" }),
        () => ModelVerdict.rewrite({ tools: ["invented"] }),
        () => ModelVerdict.rewrite({ messages: [{ nope: true }] }),
        () => ({
          _tag: "Rewrite",
          get messages(): never {
            throw new Error(SECRET)
          }
        }),
        () => new Proxy({}, { ownKeys: () => [SECRET], get: (_t, key) => (key === "_tag" ? "Continue" : undefined) })
      ]
      const kinds = ["raise", "timeout", "bad_return", "bad_return", "bad_return", "bad_return", "bad_return"]
      for (const [i, hook] of hooks.entries()) {
        const { fake, model: llm } = await model({ beforeModel: [hook as never] })
        const error = await generateText({ model: llm, tools: { add }, prompt: "hi" }).then(() => undefined, (e) => e)
        assert.instanceOf(error, ModelHookFailed, `hook ${i}`)
        assert.strictEqual((error as ModelHookFailed).kind, kinds[i])
        assert.notInclude((error as Error).message, SECRET)
        assert.strictEqual(fake.bodies.length, 0)
      }
    }
  )

  it(
    "streamText: a secret split over two deltas is held, then replaced whole; no delta " +
      "carries any of it",
    async () => {
      const seen: Array<AfterModelChunkInput> = []
      const { model: llm } = await model({
        afterModelChunk: [(input) => {
          seen.push(input)
          return redactChunks(input)
        }]
      })
      const deltas: Array<string> = []
      const result = streamText({ model: llm, prompt: "show me" })
      for await (const delta of result.textStream) deltas.push(delta)
      assert.strictEqual(deltas.join(""), "key [REDACTED] end")
      assert.isTrue(deltas.every((d) => !d.includes(SECRET.slice(0, 4))), JSON.stringify(deltas))
      assert.isAbove(seen.length, 1)
      assert.isTrue(seen.at(-1)!.final)
    }
  )

  it(
    "generateText: each text goes through afterModelChunk whole, and afterModel sees the " +
      "answer after it",
    async () => {
      const answers: Array<unknown> = []
      const { model: llm } = await model({
        afterModelChunk: [redactChunks],
        afterModel: [({ content }) => {
          answers.push(content)
          return ModelVerdict.cont
        }, () => {
          throw new Error("observers only observe")
        }]
      })
      const result = await generateText({ model: llm, prompt: "show me" })
      assert.strictEqual(result.text, "key [REDACTED] end")
      assert.notInclude(JSON.stringify(answers), SECRET)
      assert.include(JSON.stringify(answers), "[REDACTED]")
    }
  )

  it(
    "a Block stops the answer: no more text, its tool calls never run, and the finish says who " +
      "stopped it",
    async () => {
      let ran = 0
      const counted = tool({ inputSchema: z.object({ a: z.number() }), execute: async () => ++ran })
      const block = ({ pending }: AfterModelChunkInput) =>
        pending.includes("sk-") ? ModelVerdict.block("a credential") : ModelVerdict.cont
      for (const run of ["stream", "generate"] as const) {
        const { model: llm } = await model({ afterModelChunk: [{ id: "creds", run: block }] }, [
          { text: LEAKY, toolCalls: [{ name: "counted", args: { a: 1 } }] }
        ])
        const options = { model: llm, tools: { counted }, prompt: "go", stopWhen: stepCountIs(3) }
        const result = run === "stream" ? streamText(options) : await generateText(options)
        assert.notInclude(await result.text, "sk-")
        assert.strictEqual(await result.finishReason, "content-filter")
        assert.deepStrictEqual((await result.providerMetadata)?.interlock, {
          blockedBy: "creds",
          reason: "a credential"
        })
      }
      assert.strictEqual(ran, 0)
    }
  )

  /**
   * A provider whose stream gives its tool call before its text (as one may, a block at a time): an in-process model of
   * the SDK's provider spec, since the OpenAI provider gives tool calls only at the end.
   */
  const callFirst = (text: string) => {
    const parts = [
      { type: "stream-start", warnings: [] },
      { type: "tool-call", toolCallId: "c1", toolName: "counted", input: JSON.stringify({ a: 1 }) },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: text },
      { type: "text-end", id: "t" },
      {
        type: "finish",
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } }
      }
    ]
    let turns = 0
    const base = {
      specificationVersion: "v4",
      provider: "fake",
      modelId: "fake",
      supportedUrls: {},
      doGenerate: () => Promise.reject(new Error("streams only")),
      doStream: async () => ({
        stream: new ReadableStream({
          start: (controller) => {
            const answer = turns++ === 0
              ? parts
              : [parts[0], ...parts.slice(2, 5), { ...parts[5], finishReason: { unified: "stop", raw: "stop" } }]
            for (const part of answer) controller.enqueue(part)
            controller.close()
          }
        })
      })
    }
    return base as unknown as Parameters<typeof wrapLanguageModel>[0]["model"]
  }

  for (const [text, blocked] of [[LEAKY, true], ["fine", false]] as const) {
    const outcome = blocked ? "a Block drops it" : "it runs once the text passed"
    it(`streamed, a tool call that comes before the text is held for the gate: ${outcome}`, async () => {
      let ran = 0
      const counted = tool({ inputSchema: z.object({ a: z.number() }), execute: async () => ++ran })
      const llm = wrapLanguageModel({
        model: callFirst(text),
        middleware: interlockModelMiddleware({
          hooks: {
            afterModelChunk: [
              ({ pending }) => (pending.includes("sk-") ? ModelVerdict.block("a key") : ModelVerdict.cont)
            ]
          }
        })
      })
      const result = streamText({ model: llm, tools: { counted }, prompt: "go", stopWhen: stepCountIs(3) })
      const types: Array<string> = []
      for await (const part of result.fullStream) types.push(part.type)
      assert.strictEqual(ran, blocked ? 0 : 1)
      if (blocked) assert.notInclude(types, "tool-call")
      else assert.isBelow(types.indexOf("text-delta"), types.indexOf("tool-call"))
    })
  }

  it("a failing afterModelChunk hook errors the stream, and what it held back is never shown", async () => {
    let calls = 0
    const { model: llm } = await model({
      afterModelChunk: [() => (++calls === 1 ? ModelVerdict.hold : Promise.reject(new Error(SECRET)))]
    })
    const deltas: Array<string> = []
    const errors: Array<unknown> = []
    const result = streamText({ model: llm, prompt: "show me", onError: ({ error }) => void errors.push(error) })
    const thrown = await (async () => {
      for await (const delta of result.textStream) deltas.push(delta)
    })().then(() => undefined, (error: unknown) => error)
    assert.deepStrictEqual(deltas, [])
    assert.instanceOf(thrown, ModelHookFailed)
    assert.strictEqual((thrown as ModelHookFailed).kind, "raise")
    assert.notInclude(JSON.stringify(errors.map(String)), SECRET)
  })

  it("a hook that holds to the end is refused there: the stream errors, and the held text is never shown", async () => {
    const { model: llm } = await model({ afterModelChunk: [() => ModelVerdict.hold] })
    const deltas: Array<string> = []
    const thrown = await (async () => {
      for await (const delta of streamText({ model: llm, prompt: "show me", onError: () => undefined }).textStream) {
        deltas.push(delta)
      }
    })().then(() => undefined, (error: unknown) => error)
    assert.deepStrictEqual(deltas, [])
    assert.instanceOf(thrown, ModelHookFailed)
    assert.strictEqual((thrown as ModelHookFailed).kind, "bad_return")
  })

  it("a stream the caller aborts while a delta is held never shows what was held", async () => {
    let release: () => void = () => undefined
    const waiting = new Promise<void>((resolve) => (release = resolve))
    const { model: llm } = await model({
      afterModelChunk: [async ({ pending }) => {
        if (!pending.includes(SECRET)) return ModelVerdict.hold
        release()
        await new Promise((resolve) => setTimeout(resolve, 200))
        return ModelVerdict.cont
      }]
    })
    const controller = new AbortController()
    const result = streamText({
      model: llm,
      prompt: "show me",
      abortSignal: controller.signal,
      onError: () => undefined
    })
    const deltas: Array<string> = []
    const reading = (async () => {
      for await (const delta of result.textStream) deltas.push(delta)
    })().catch(() => undefined)
    await waiting
    controller.abort()
    await reading
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.deepStrictEqual(deltas, [])
  })

  it("malformed hooks are a ConfigError naming the entry", () => {
    const bad = (hooks: unknown) => {
      try {
        interlockModelMiddleware({ hooks: hooks as ModelHooksConfig })
        return undefined
      } catch (error) {
        return error
      }
    }
    const unknownEvent = bad({ beforeTool: [] })
    assert.instanceOf(unknownEvent, ConfigError)
    assert.include((unknownEvent as ConfigError).message, "beforeTool")
    assert.include(
      (bad({ beforeModel: [{ run: () => ModelVerdict.cont, timeout: -1 }] }) as Error).message,
      "beforeModel[0]"
    )
    assert.include(
      (bad({ afterModel: [() => ModelVerdict.cont, { id: "afterModel[0]", run: () => ModelVerdict.cont }] }) as Error)
        .message,
      "duplicate"
    )
  })
})
