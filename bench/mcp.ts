/**
 * `npm run bench -- mcp`: an SDK client and an SDK server over the SDK's InMemoryTransport with an
 * echo tool. `bare` calls `client.callTool` directly; the interlock cases go through
 * @interlock/mcp's hub and core's pipeline to an identical server. A last pair of cases measures
 * throughput with 10,000 calls in flight.
 */
import { type HooksConfig, Interlock, Policy, ToolCall, ToolCalls, ToolTransport, Verdict } from "@interlock/core"
import { McpTransport } from "@interlock/mcp"
import { Client, InMemoryTransport } from "@modelcontextprotocol/client"
import { McpServer } from "@modelcontextprotocol/server"
import { Effect, Exit, Layer, Scope } from "effect"
import { z } from "zod"
import { type CaseResult, measure, median, report, round3, serviceOf } from "./harness.ts"

const echoServer = () => {
  const server = new McpServer({ name: "echo", version: "1.0.0" }, { capabilities: { tools: {} } })
  server.registerTool("echo", { inputSchema: z.object({ n: z.number() }) }, async ({ n }) => ({
    content: [{ type: "text" as const, text: String(n) }]
  }))
  return server
}

/** Ten pre-call hooks spread over the three onion levels (global, server, tool), all built by `verdict`. */
const tenHooks = (
  id: string,
  verdict: (call: { args: { n?: unknown } }) => Verdict.PreToolCallVerdict
): HooksConfig => ({
  preToolCall: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => ({
    match: ["*", "mem/*", "mem/echo"][i % 3],
    id: `${id}-${i}`,
    run: verdict
  }))
})
const passThrough = tenHooks("pass", () => Verdict.continue)
const rewrites = tenHooks("rewrite", (call) => Verdict.rewrite({ args: { n: Number(call.args.n) + 1 } }))
/** A deny rule, an ask rule and the deciding allow rule, with a default deny. */
const rules = Policy.rules({
  default: "deny",
  rules: [["no-writes", "mem/write_*", "deny"], ["ask-exec", "mem/exec_*", "ask"], ["echo", "mem/echo", "allow"]].map(
    ([id, match, decision]) => ({ id, match, decision: decision as "allow" | "deny" | "ask" })
  )
})
const allowAll = Policy.rules({ rules: [{ match: "*", decision: "allow" }] })

/** The hub's transport alone (no core pipeline), over its own in-memory server. */
const transportOnly = (scope: Scope.Scope) =>
  serviceOf(McpTransport.memory("mem", { server: echoServer() }, { connect: "eager" }), ToolTransport, scope)

/** A governed client over its own in-memory server, connected before timing starts. */
const governed = (hooks: HooksConfig, policy: Layer.Layer<Policy, unknown>, scope: Scope.Scope) =>
  serviceOf(
    Interlock.layer({ hooks, policy }).pipe(
      Layer.provide(McpTransport.memory("mem", { server: echoServer() }, { connect: "eager" }))
    ),
    ToolCalls,
    scope
  )

/** Calls per second with `inFlight` calls started at once, median of `rounds`, interleaved. */
const throughput = async (runs: ReadonlyArray<() => Promise<unknown>>, rounds = 7): Promise<Array<number>> => {
  const samples = runs.map(() => [] as Array<number>)
  for (const run of runs) await run()
  for (let round = 0; round < rounds; round++) {
    for (const [i, run] of runs.entries()) {
      const start = performance.now()
      await run()
      samples[i].push(IN_FLIGHT / ((performance.now() - start) / 1000))
    }
  }
  return samples.map(median)
}

const IN_FLIGHT = 10_000

/**
 * CPU time (user + system) per call, median of interleaved rounds: less sensitive than wall time
 * to other processes on a shared machine, so it is reported beside the harness's figures.
 */
const cpuPerCall = async (
  runs: ReadonlyArray<() => Promise<unknown>>,
  calls: number,
  rounds = 9
): Promise<Array<number>> => {
  const samples = runs.map(() => [] as Array<number>)
  for (let round = 0; round < rounds; round++) {
    for (const [i, run] of runs.entries()) {
      const before = process.cpuUsage()
      await run()
      const used = process.cpuUsage(before)
      samples[i].push((used.user + used.system) / calls)
    }
  }
  return samples.map(median)
}

export default async function run(): Promise<void> {
  const client = new Client({ name: "bare", version: "1.0.0" })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await echoServer().connect(serverSide)
  await client.connect(clientSide)
  const args = { n: 1 }
  const bare = () => client.callTool({ name: "echo", arguments: args })

  const scope = Scope.makeUnsafe()
  const [transport, zero, ten, tenRewrites] = await Effect.runPromise(Effect.all([
    transportOnly(scope),
    governed({}, allowAll, scope),
    governed(passThrough, rules, scope),
    governed(rewrites, allowAll, scope)
  ]))
  const input = { serverId: "mem", name: "echo", args }
  const check = await Effect.runPromise(tenRewrites.callTool(input))
  if (check.text !== "11") throw new Error(`the rewrites did not reach the server: ${check.text}`)

  const call = new ToolCall({ serverId: "mem", name: "echo", args, callId: "bench" })
  const sequential = await measure("mcp", { name: "bare", op: bare, iterations: 5_000 }, [
    { name: "hub-transport-only", effect: transport.callTool(call, { timeoutMs: 60_000 }), iterations: 5_000 },
    { name: "interlock-0-hooks", effect: zero.callTool(input), iterations: 5_000 },
    { name: "interlock-10-hooks-policy", effect: ten.callTool(input), iterations: 5_000 },
    { name: "interlock-10-rewrites", effect: tenRewrites.callTool(input), iterations: 5_000 }
  ], { rounds: 11 })

  const CPU_CALLS = 3_000
  const loop = (effect: Effect.Effect<unknown, unknown>) => () =>
    Effect.runPromise(Effect.gen(function*() {
      for (let i = 0; i < CPU_CALLS; i++) yield* effect
    }))
  const cpu = await cpuPerCall([
    async () => {
      for (let i = 0; i < CPU_CALLS; i++) await bare()
    },
    loop(transport.callTool(call, { timeoutMs: 60_000 })),
    loop(zero.callTool(input)),
    loop(ten.callTool(input)),
    loop(tenRewrites.callTool(input))
  ], CPU_CALLS)
  const withCpu = sequential.cases.map((c, i) => ({
    ...c,
    cpuUs: round3(cpu[i + 1]),
    cpuRatio: round3(cpu[i + 1] / cpu[0])
  }))

  const concurrentInput = Array.from({ length: IN_FLIGHT }, () => input)
  const [bareCps, zeroCps] = await throughput([
    () => Promise.all(Array.from({ length: IN_FLIGHT }, bare)),
    () => Effect.runPromise(Effect.forEach(concurrentInput, (i) => zero.callTool(i), { concurrency: "unbounded" }))
  ])
  const concurrent = (name: string, cps: number): CaseResult => ({
    name,
    us: round3(1e6 / cps),
    ratio: round3(bareCps / cps),
    callsPerSecond: Math.round(cps),
    throughputVsBare: round3(cps / bareCps),
    inFlight: IN_FLIGHT
  })
  report({
    ...sequential,
    baseline: { ...sequential.baseline, cpuUs: round3(cpu[0]) } as typeof sequential.baseline,
    cases: [
      ...withCpu,
      concurrent("bare-concurrent-10k", bareCps),
      concurrent("interlock-0-hooks-concurrent-10k", zeroCps)
    ]
  })
  console.log(
    `  CPU µs per call: bare ${round3(cpu[0])}, ${
      withCpu.map((c) => `${c.name} ${c.cpuUs} (${c.cpuRatio}x)`).join(", ")
    }`
  )
  console.log(
    `  concurrent: bare ${Math.round(bareCps)} calls/s, interlock ${Math.round(zeroCps)} calls/s (${
      (zeroCps / bareCps).toFixed(3)
    }x)`
  )
  await Effect.runPromise(Scope.close(scope, Exit.void))
  await client.close()
}
