/**
 * `npm run bench -- core`: the cost of the pipeline around a native tool, against calling the tool
 * directly, plus one policy decision against 10,000 rules.
 */
import {
  Approvals,
  HookContext,
  Hooks,
  type HooksConfig,
  Interlock,
  NativeTool,
  Policy,
  type PolicyRule,
  ToolCall,
  ToolCalls,
  ToolTransport,
  Verdict
} from "@interlock/core"
import { Effect, Exit, Layer, Schema, Scope } from "effect"
import { measure, report, round3, serviceOf } from "./harness.ts"

const echo = NativeTool.make({
  name: "echo",
  parameters: Schema.Struct({ n: Schema.Finite }),
  run: ({ n }) => Effect.succeed(n)
})

const levels = ["*", "local/*", "local/echo"]
const passThrough: HooksConfig = {
  preToolCall: Array.from(
    { length: 10 },
    (_, i) => ({ match: levels[i % 3], id: `pass-${i}`, run: () => Verdict.continue })
  )
}
const rewrites: HooksConfig = {
  preToolCall: Array.from({ length: 10 }, (_, i) => ({
    match: levels[i % 3],
    id: `rewrite-${i}`,
    run: (call: { args: { n?: unknown } }) => Verdict.rewrite({ args: { n: Number(call.args.n) + 1 } })
  }))
}
const rules = Policy.rules({
  rules: [
    { id: "no-writes", match: "local/write_*", decision: "deny" },
    { id: "ask-delete", match: { server: "local", regex: /^delete/ }, decision: "ask" },
    { id: "echo", match: "local/echo", decision: "allow" }
  ],
  default: "deny"
})

/** 10,000 rules: exact names, globs and regexes over 500 servers; the deciding rule is near the end. */
export const tenThousandRules = (): Array<PolicyRule> => {
  const out: Array<PolicyRule> = []
  for (let i = 0; i < 9_990; i++) {
    const server = `srv${i % 500}`
    const kind = i % 3
    out.push(
      kind === 0
        ? { id: `r${i}`, match: `${server}/tool_${i}`, decision: "deny" }
        : kind === 1
        ? { id: `r${i}`, match: `${server}/prefix_${i}_*`, decision: "ask" }
        : { id: `r${i}`, match: { server, regex: new RegExp(`^re_${i}_`) }, decision: "deny" }
    )
  }
  for (let i = 0; i < 8; i++) out.push({ id: `any${i}`, match: `*/global_${i}_*`, decision: "deny" })
  out.push({ id: "decider", match: "srv7/read_*", decision: "allow" })
  out.push({ id: "last", match: "*", decision: "deny" })
  return out
}

const client = (hooks: HooksConfig, policy: Layer.Layer<Policy, unknown>) =>
  Interlock.layerFromServices().pipe(
    Layer.provide(Layer.mergeAll(Hooks.layer(hooks), policy, Approvals.none)),
    Layer.provide(ToolTransport.fromTools([echo]))
  )

export default async function run(): Promise<void> {
  const args = { n: 1 }
  const bare = echo.handler(args)
  // The clients' scope stays open while they are measured (it holds their hook fiber sets).
  const scope = Scope.makeUnsafe()
  const viaPipeline = (layer: Layer.Layer<ToolCalls, unknown>) => Effect.runSync(serviceOf(layer, ToolCalls, scope))
  const zero = viaPipeline(client({}, Policy.allowAll))
  const ten = viaPipeline(client(passThrough, rules))
  const tenRewrites = viaPipeline(client(rewrites, Policy.allowAll))
  const policy = Effect.runSync(serviceOf(Policy.rules({ rules: tenThousandRules(), default: "deny" }), Policy, scope))
  const decisionCall = new ToolCall({ serverId: "srv7", name: "read_file", args: {}, callId: "c" })
  const ctx = new HookContext({ client: "bench", serverId: "srv7", assigns: {} })
  const decided = Effect.runSync(policy.decide(decisionCall, ctx))
  if (decided.rule !== "decider") throw new Error(`the 10k-rule policy chose ${decided.rule}`)
  const input = { serverId: "local", name: "echo", args }
  const result = await measure("core", { name: "bare", effect: bare, iterations: 20_000 }, [
    { name: "interlock-0-hooks", effect: zero.callTool(input), iterations: 20_000 },
    { name: "interlock-10-hooks-policy", effect: ten.callTool(input), iterations: 20_000 },
    { name: "interlock-10-rewrites", effect: tenRewrites.callTool(input), iterations: 10_000 },
    { name: "policy-10k-rules", effect: policy.decide(decisionCall, ctx), iterations: 50_000 }
  ])
  await Effect.runPromise(Scope.close(scope, Exit.void))
  const byName = Object.fromEntries(result.cases.map((c) => [c.name, c.us]))
  const perHook = round3((byName["interlock-10-hooks-policy"] - byName["interlock-0-hooks"]) / 10)
  // Kept on the 10-hook case, so that `--runs=N` reports its median too.
  report({
    ...result,
    cases: result.cases.map((
      c
    ) => (c.name === "interlock-10-hooks-policy" ? { ...c, perPassThroughHookUs: perHook } : c))
  })
  console.log(`  per pass-through hook (10-hooks-policy minus 0-hooks, over 10): ${perHook.toFixed(3)} µs`)
}
