/**
 * `npm run bench -- cedar`: one Cedar decision against 1,000 policies (990 scoped to a tool, over
 * 500 servers, with argument and role conditions; 10 unscoped), against one decision of 1,000
 * JSON rules; the p50 of single timed decisions is printed beside the batch medians.
 */
import { Policy as CedarPolicy } from "@interlock/cedar"
import { HookContext, Policy, type PolicyRule, Principal, ToolCall } from "@interlock/core"
import { Effect, Exit, Scope } from "effect"
import { measure, median, report, round3, serviceOf } from "./harness.ts"

/** 1,000 Cedar policies; the call below is decided by `decider` (permit) unless `no-etc` forbids. */
export const thousandPolicies = (): string => {
  const out: Array<string> = []
  for (let i = 0; i < 990; i++) {
    const tool = `Interlock::Tool::"srv${i % 500}/tool_${i}"`
    out.push(
      i % 3 === 0
        ? `@id("p${i}") forbid(principal, action == Interlock::Action::"callTool", resource == ${tool}) when { ` +
          `context.args has path && context.args.path like "/etc/*" };`
        : i % 3 === 1
        ? `@id("p${i}") @ask("needs a human") permit(principal in Interlock::Role::"dev", action == ` +
          `Interlock::Action::"callTool", resource == ${tool});`
        : `@id("p${i}") permit(principal, action in [Interlock::Action::"callTool", ` +
          `Interlock::Action::"listTools"], resource == ${tool}) when { resource.readOnlyHint };`
    )
  }
  for (let i = 0; i < 8; i++) {
    out.push(
      `@id("g${i}") forbid(principal in Interlock::Role::"guest${i}", action, resource) when { ` +
        `resource.destructiveHint };`
    )
  }
  out.push(
    `@id("no-etc") @reason("no /etc") forbid(principal, action == Interlock::Action::"callTool", resource == ` +
      `Interlock::Tool::"srv7/read_file") when { context.args has path && context.args.path like "/etc/*" };`
  )
  out.push(
    `@id("decider") permit(principal in Interlock::Role::"dev", action == Interlock::Action::"callTool", resource ` +
      `== Interlock::Tool::"srv7/read_file");`
  )
  return out.join("\n")
}

/** 1,000 JSON rules of the same shapes, for the baseline. */
const thousandRules = (): Array<PolicyRule> => {
  const out: Array<PolicyRule> = []
  for (let i = 0; i < 990; i++) {
    const match = `srv${i % 500}/tool_${i}`
    out.push(
      i % 3 === 0
        ? { id: `p${i}`, match, decision: "deny", when: (args) => String(args.path).startsWith("/etc/") }
        : { id: `p${i}`, match, decision: i % 3 === 1 ? "ask" : "allow" }
    )
  }
  for (let i = 0; i < 8; i++) out.push({ id: `g${i}`, match: "*", principals: [`guest${i}`], decision: "deny" })
  out.push({
    id: "no-etc",
    match: "srv7/read_file",
    decision: "deny",
    when: (args) => String(args.path).startsWith("/etc/")
  })
  out.push({ id: "decider", match: "srv7/read_file", decision: "allow" })
  return out
}

export default async function run(): Promise<void> {
  const scope = Scope.makeUnsafe()
  const cedar = await Effect.runPromise(serviceOf(CedarPolicy.cedar({ policies: thousandPolicies() }), Policy, scope))
  const json = Effect.runSync(serviceOf(Policy.rules({ rules: thousandRules(), default: "deny" }), Policy, scope))
  const call = new ToolCall({
    serverId: "srv7",
    name: "Read-File",
    args: { path: "/srv/data/report.txt", mode: "text" },
    callId: "c"
  })
  const ctx = new HookContext({
    client: "bench",
    serverId: "srv7",
    assigns: {},
    principal: new Principal({ id: "alice", roles: ["dev"] })
  })
  for (const policy of [cedar, json]) {
    const decided = Effect.runSync(policy.decide(call, ctx))
    if (decided._tag !== "Allow" || decided.rule !== "decider") {
      throw new Error(`the 1,000-policy set decided ${decided._tag} ${decided.rule}`)
    }
  }
  // Suspended: a policy's decide may answer with a ready Exit, which a loop would otherwise reuse.
  const result = await measure("cedar", {
    name: "json-rules-1000",
    effect: Effect.suspend(() => json.decide(call, ctx)),
    iterations: 20_000
  }, [
    { name: "cedar-1000-policies", effect: Effect.suspend(() => cedar.decide(call, ctx)), iterations: 5_000 }
  ])
  // Single decisions, timed one by one: the p50 the issue asks for.
  const singles: Array<number> = []
  for (let i = 0; i < 20_000; i++) {
    const start = performance.now()
    Effect.runSync(cedar.decide(call, ctx))
    singles.push((performance.now() - start) * 1000)
  }
  await Effect.runPromise(Scope.close(scope, Exit.void))
  const p50 = round3(median(singles))
  const p99 = round3(singles.sort((a, b) => a - b)[Math.floor(singles.length * 0.99)])
  // The batch figure is a mean, which the rare stall of a loaded machine dominates; the p50 is the bar.
  report({ ...result, cases: result.cases.map((c) => (c.name === "cedar-1000-policies" ? { ...c, p50, p99 } : c)) })
  console.log(`  cedar-1000-policies, single decisions: p50 ${p50} µs, p99 ${p99} µs`)
}
