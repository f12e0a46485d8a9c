/**
 * The agent loop's overhead per tool call, with a scripted in-process model, against the popular
 * agent frameworks run in the same process with their own fakes.
 *
 * Modes: K=1 (one tool call per run: two model turns and one tool) and K=10 (ten tool calls in one
 * turn, then a final answer). Every case is reported in µs per tool call (a K=10 run's time / 10),
 * with its ratio to `direct-k1`: a hand-written loop that calls the scripted model and the tool
 * function directly, with no framework at all.
 *
 * Interlock cases: no hooks (allowAll policy); 10 pass-through supervised hooks with a rules policy
 * and receipts; 10 rewriting hooks. Peers: the Vercel AI SDK (MockLanguageModelV4, `execute`
 * wrappers), OpenAI Agents JS (a fake Model, tool input guardrails) and LangChain v1 (`createAgent`
 * with FakeToolCallingModel, `wrapToolCall` middleware), with and without 10 hooks.
 *
 * Streaming: an answer of 100 text deltas from a scripted in-process stream, through `Agent.stream`
 * and through Vercel's `streamText`: the time to the first delta, and µs per delta with no chunk
 * hook, one pass-through afterModelChunk hook, and a redactor that holds back and rewrites.
 */
import { Agent, AgentVerdict } from "@interlock/agent"
import { NativeTool, Policy, Verdict } from "@interlock/core"
import {
  Agent as OpenAiAgent,
  defineToolInputGuardrail,
  run as openAiRun,
  setTracingDisabled,
  tool as openAiTool,
  ToolGuardrailFunctionOutputFactory
} from "@openai/agents"
import { generateText, stepCountIs, streamText, tool as aiTool } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { Effect, Layer, Schema, Scope, Stream } from "effect"
import { LanguageModel, type Response } from "effect/ai"
import { createMiddleware } from "langchain"
import { z } from "zod"
import { type BenchCase, measure, report, round3, type SuiteResult } from "./harness.ts"
import { add, calls, langchainRun, openaiModel, vercelModel } from "./support/frameworks.ts"

setTracingDisabled(true)

const HOOKS = 10

// --- a hand-written loop: the baseline -------------------------------------------------------

const direct = (k: number) => async () => {
  const transcript: Array<unknown> = ["go"]
  for (let turn = 0; turn < 2; turn++) {
    const requested = turn === 0 ? calls(k) : []
    if (requested.length === 0) return "done"
    for (const call of requested) transcript.push(await Promise.resolve(add(call)))
  }
}

// --- Interlock ----------------------------------------------------------------------------

const scripted = (k: number) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) => {
        const last = options.prompt.content[options.prompt.content.length - 1]
        const usage = {
          inputTokens: { total: 3, uncached: undefined, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 2, text: undefined, reasoning: undefined }
        }
        const parts: Array<Response.PartEncoded> = last.role === "tool"
          ? [{ type: "text", text: "done" }, { type: "finish", reason: "stop", usage }]
          : [
            ...calls(k).map((c): Response.PartEncoded => ({
              type: "tool-call",
              id: c.id,
              name: "add",
              params: { a: c.a, b: c.b }
            })),
            { type: "finish", reason: "tool-calls", usage }
          ]
        return Effect.succeed(parts)
      },
      streamText: () => Effect.die("not used") as never
    })
  )

const addTool = NativeTool.make({
  name: "add",
  description: "Adds two numbers",
  parameters: Schema.Struct({ a: Schema.Finite, b: Schema.Finite }),
  run: ({ a, b }) => String(a + b)
})

const passThrough = Array.from(
  { length: HOOKS },
  (_, i) => ({ match: i % 2 === 0 ? "*" : "local/add", id: `pass${i}`, run: () => Verdict.continue })
)
const rewriting = Array.from({ length: HOOKS }, (_, i) => ({
  match: "*",
  id: `rewrite${i}`,
  run: (call: { readonly args: { readonly [key: string]: unknown } }) =>
    Verdict.rewrite({ args: { ...(call.args as { a: number; b: number }), b: 1 } })
}))
const rules = Policy.rules({
  rules: [{ match: "local/delete_*", decision: "deny" }, { match: "local/add", decision: "allow" }],
  default: "deny"
})

const interlock = async (k: number, variant: "none" | "policy" | "rewrite"): Promise<() => Promise<unknown>> => {
  const scope = Effect.runSync(Scope.make())
  const agent = await Effect.runPromise(
    Agent.make({
      tools: [addTool],
      policy: variant === "none" ? Policy.allowAll : rules,
      hooks: variant === "none" ? {} : { preToolCall: variant === "policy" ? passThrough : rewriting }
    }).pipe(Scope.provide(scope), Effect.provide(scripted(k)))
  )
  const once = agent.run("go")
  const check = await Effect.runPromise(once)
  if (check.status !== "done" || check.toolCallCount !== k) {
    throw new Error(`interlock k=${k} ${variant}: ${check.status}`)
  }
  return () => Effect.runPromise(once)
}

// --- Vercel AI SDK ---------------------------------------------------------------------------

const vercel = (k: number, hooks: number) => {
  const model = vercelModel(k)
  let execute = async (input: { a: number; b: number }) => add(input)
  for (let i = 0; i < hooks; i++) {
    const inner = execute
    execute = async (input) => inner(input)
  }
  const tools = {
    add: aiTool({ description: "Adds two numbers", inputSchema: z.object({ a: z.number(), b: z.number() }), execute })
  }
  return () => generateText({ model, tools, prompt: "go", stopWhen: stepCountIs(5) })
}

// --- OpenAI Agents JS ------------------------------------------------------------------------

const openai = (k: number, hooks: number) => {
  const model = openaiModel(k)
  const inputGuardrails = Array.from(
    { length: hooks },
    (_, i) =>
      defineToolInputGuardrail({ name: `guard${i}`, run: async () => ToolGuardrailFunctionOutputFactory.allow() })
  )
  const agent = new OpenAiAgent({
    name: "bench",
    instructions: "add",
    model: model as any,
    tools: [
      openAiTool({
        name: "add",
        description: "Adds two numbers",
        parameters: z.object({ a: z.number(), b: z.number() }),
        execute: async (input) => add(input),
        inputGuardrails
      })
    ]
  })
  return () => openAiRun(agent, "go", { maxTurns: 5 })
}

// --- LangChain v1 ----------------------------------------------------------------------------

const langchain = (k: number, hooks: number) => {
  const middleware = Array.from(
    { length: hooks },
    (_, i) => createMiddleware({ name: `wrap${i}`, wrapToolCall: (request, handler) => handler(request) })
  )
  return langchainRun(k, middleware)
}

// --- Streaming ------------------------------------------------------------------------------

const CHUNKS = 100
const pieces = Array.from({ length: CHUNKS }, (_, i) => `w${i} `)

const streamingModel = Layer.effect(
  LanguageModel.LanguageModel,
  LanguageModel.make({
    generateText: () => Effect.die("not used") as never,
    streamText: () => {
      const usage = {
        inputTokens: { total: 3, uncached: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: CHUNKS, text: undefined, reasoning: undefined }
      }
      return Stream.fromIterable<Response.StreamPartEncoded>([
        { type: "text-start", id: "t" },
        ...pieces.map((delta): Response.StreamPartEncoded => ({ type: "text-delta", id: "t", delta })),
        { type: "text-end", id: "t" },
        { type: "finish", reason: "stop", usage }
      ])
    }
  })
)

const SECRET = "sk-live-0000"
/** Masks the marked secret; holds back a tail that could start one. */
const redact = ({ pending, final }: { readonly pending: string; readonly final: boolean }) => {
  const masked = pending.replaceAll(SECRET, "[redacted]")
  if (!final) {
    for (let n = Math.min(SECRET.length - 1, masked.length); n > 0; n--) {
      if (masked.endsWith(SECRET.slice(0, n))) return AgentVerdict.hold
    }
  }
  return masked === pending ? AgentVerdict.continue : AgentVerdict.replace(masked)
}

const streaming = async (variant: "none" | "pass" | "redact", firstOnly: boolean) => {
  const scope = Effect.runSync(Scope.make())
  const hooks = variant === "none"
    ? {}
    : { afterModelChunk: [variant === "pass" ? () => AgentVerdict.continue : redact] }
  const agent = await Effect.runPromise(
    Agent.make({ policy: Policy.allowAll, hooks }).pipe(Scope.provide(scope), Effect.provide(streamingModel))
  )
  const events = agent.stream("go")
  const once = firstOnly
    ? Stream.runDrain(Stream.takeUntil(events, (e) => e._tag === "TextDelta"))
    : Stream.runLast(events)
  const check = await Effect.runPromise(Stream.runCollect(events))
  const text = Array.from(check).flatMap((e) => (e._tag === "TextDelta" ? [e.text] : [])).join("")
  if (text !== pieces.join("")) throw new Error(`interlock stream ${variant}: wrong text`)
  return () => Effect.runPromise(once)
}

const vercelStreaming = (firstOnly: boolean) => {
  const usage = {
    inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: CHUNKS, text: CHUNKS, reasoning: undefined }
  }
  const model = new MockLanguageModelV4({
    doStream: async () => ({
      stream: new ReadableStream({
        start(controller) {
          controller.enqueue({ type: "text-start", id: "t" })
          for (const delta of pieces) controller.enqueue({ type: "text-delta", id: "t", delta })
          controller.enqueue({ type: "text-end", id: "t" })
          controller.enqueue({ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage })
          controller.close()
        }
      })
    })
  } as any)
  return async () => {
    const result = streamText({ model, prompt: "go" })
    for await (const _ of result.textStream) if (firstOnly) break
  }
}

/**
 * Divides the K=10 cases' times by 10 (µs per tool call), the streamed ones by their deltas, and recomputes the ratios.
 */
const perToolCall = (result: SuiteResult): SuiteResult => ({
  ...result,
  cases: result.cases.map((c) => {
    const per = c.name.includes("k10") ? 10 : c.name.includes("chunks") ? CHUNKS : 1
    const unit = c.name.includes("ttft")
      ? "µs to the first delta"
      : c.name.includes("chunks")
      ? "µs per text delta"
      : "µs per tool call"
    return { ...c, us: round3(c.us / per), ratio: round3(c.us / per / result.baseline.us), unit }
  })
})

export default async function(): Promise<void> {
  const cases: Array<BenchCase> = []
  for (const k of [1, 10]) {
    cases.push(
      { name: `interlock-k${k}-no-hooks`, op: await interlock(k, "none"), iterations: 2_000 },
      { name: `interlock-k${k}-10-hooks-policy`, op: await interlock(k, "policy"), iterations: 2_000 },
      { name: `interlock-k${k}-10-rewriting-hooks`, op: await interlock(k, "rewrite"), iterations: 2_000 },
      { name: `vercel-k${k}`, op: vercel(k, 0), iterations: 2_000 },
      { name: `vercel-k${k}-10-hooks`, op: vercel(k, HOOKS), iterations: 2_000 },
      { name: `openai-k${k}`, op: openai(k, 0), iterations: 400 },
      { name: `openai-k${k}-10-hooks`, op: openai(k, HOOKS), iterations: 400 },
      { name: `langchain-k${k}`, op: langchain(k, 0), iterations: 100 },
      { name: `langchain-k${k}-10-hooks`, op: langchain(k, HOOKS), iterations: 100 }
    )
  }
  cases.push(
    { name: "interlock-stream-ttft", op: await streaming("none", true), iterations: 2_000 },
    { name: "vercel-stream-ttft", op: vercelStreaming(true), iterations: 2_000 },
    { name: "interlock-stream-100-chunks", op: await streaming("none", false), iterations: 300 },
    { name: "interlock-stream-100-chunks-afterModelChunk", op: await streaming("pass", false), iterations: 300 },
    { name: "interlock-stream-100-chunks-redactor", op: await streaming("redact", false), iterations: 300 },
    { name: "vercel-stream-100-chunks", op: vercelStreaming(false), iterations: 300 }
  )
  const result = await measure("agent", { name: "direct-k1", op: direct(1), iterations: 20_000 }, cases, { rounds: 7 })
  report(perToolCall(result))
}
