/**
 * What @interlock/ai adds to a framework's tool call: Vercel AI SDK `generateText`, OpenAI Agents `run()` and LangChain
 * `createAgent`, with scripted in-process models (support/frameworks.ts), bare, with Interlock (10 pass-through hooks,
 * a rules policy, receipts) and, for LangChain, with a middleware that only calls on. K=1 is one tool call a run,
 * K=10 ten in one turn; cases are in µs per tool call, each governed one with its overhead over the framework bare.
 */
import { interlockMiddleware } from "@interlock/ai/langchain"
import { interlockTools as interlockAgentTools } from "@interlock/ai/openai-agents"
import { closeTools, interlockTools } from "@interlock/ai/vercel"
import { Policy, Verdict } from "@interlock/core"
import { Agent, run, setTracingDisabled, tool as agentTool } from "@openai/agents"
import { generateText, stepCountIs, tool as aiTool } from "ai"
import { createMiddleware } from "langchain"
import { z } from "zod"
import { type BenchCase, measure, report, round3, type SuiteResult } from "./harness.ts"
import { add, langchainRun, openaiModel, vercelModel } from "./support/frameworks.ts"

const HOOKS = 10

setTracingDisabled(true)

/** Core's options for every Interlock case: 10 pass-through hooks and a rules policy that allows `ai/add`. */
const governance = () => ({
  hooks: {
    preToolCall: Array.from(
      { length: HOOKS },
      (_, i) => ({ match: i % 2 === 0 ? "*" : "ai/add", id: `pass${i}`, run: () => Verdict.continue })
    )
  },
  policy: Policy.rules({
    rules: [{ match: "ai/delete_*", decision: "deny" }, { match: "ai/add", decision: "allow" }],
    default: "deny"
  })
})

const closers: Array<() => Promise<void>> = []

const vercel = (k: number, governed: boolean) => {
  const model = vercelModel(k)
  const bare = {
    add: aiTool({
      description: "Adds two numbers",
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      execute: async (input) => add(input)
    })
  }
  const tools = governed ? interlockTools(bare, governance()) : bare
  if (governed) closers.push(() => closeTools(tools))
  return () => generateText({ model, tools, prompt: "go", stopWhen: stepCountIs(5) })
}

const openai = (k: number, governed: boolean) => {
  const bare = [agentTool({
    name: "add",
    description: "Adds two numbers",
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: async (input) => add(input)
  })]
  const tools = governed ? interlockAgentTools(bare, governance()) : { tools: bare, close: async () => undefined }
  closers.push(tools.close)
  const agent = new Agent({ name: "bench", instructions: "add", model: openaiModel(k) as any, tools: [...tools.tools] })
  return () => run(agent, "go", { maxTurns: 5 })
}

/** A wrapToolCall that only calls on: what LangChain's middleware machinery costs by itself. */
const passThrough = createMiddleware({ name: "PassThrough", wrapToolCall: (request, handler) => handler(request) })

const langchain = (k: number, governed: boolean | "pass-through") => {
  if (governed === "pass-through") return langchainRun(k, [passThrough])
  const middleware = governed ? [interlockMiddleware(governance())] : []
  for (const m of middleware) closers.push(m.close)
  return langchainRun(k, middleware)
}

/** Per tool call, and each Interlock case's overhead over its bare framework at the same K. */
const perToolCall = (result: SuiteResult): SuiteResult => {
  const per = (name: string) => (name.includes("k10") ? 10 : 1)
  const base = { ...result.baseline, us: round3(result.baseline.us / per(result.baseline.name)) }
  const cases = result.cases.map((c) => ({ ...c, us: round3(c.us / per(c.name)), unit: "µs per tool call" }))
  const bare = new Map([base, ...cases].map((c) => [c.name, c.us]))
  return {
    ...result,
    baseline: { ...base, unit: "µs per tool call" },
    cases: cases.map((c) => {
      const framework = bare.get(c.name.replace(/-(?:interlock|pass-through)$/, ""))
      return {
        ...c,
        ratio: round3(c.us / base.us),
        ...(/-(?:interlock|pass-through)$/.test(c.name) && framework !== undefined
          ? { overheadUs: round3(c.us - framework) }
          : {})
      }
    })
  }
}

export default async function(): Promise<void> {
  const cases: Array<BenchCase> = [{ name: "vercel-k1-interlock", op: vercel(1, true), iterations: 2_000 }]
  for (const k of [10]) {
    cases.push(
      { name: `vercel-k${k}`, op: vercel(k, false), iterations: 400 },
      { name: `vercel-k${k}-interlock`, op: vercel(k, true), iterations: 400 }
    )
  }
  for (const k of [1, 10]) {
    cases.push(
      { name: `openai-k${k}`, op: openai(k, false), iterations: 400 },
      { name: `openai-k${k}-interlock`, op: openai(k, true), iterations: 400 },
      { name: `langchain-k${k}`, op: langchain(k, false), iterations: 100 },
      { name: `langchain-k${k}-interlock`, op: langchain(k, true), iterations: 100 },
      { name: `langchain-k${k}-pass-through`, op: langchain(k, "pass-through"), iterations: 100 }
    )
  }
  const result = await measure("adapters", { name: "vercel-k1", op: vercel(1, false), iterations: 2_000 }, cases, {
    rounds: 7
  })
  const shaped = perToolCall(result)
  report(shaped)
  for (const c of shaped.cases) if ("overheadUs" in c) console.log(`  ${c.name}: +${c.overheadUs} µs per tool call`)
  await Promise.all(closers.map((close) => close()))
}
