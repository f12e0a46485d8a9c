/**
 * Type-level checks, run by `tsc -p .` (part of `npm test`): hook functions written inline get
 * their parameter types from the event, and hook requirements reach the Layer's type.
 */
import { Context, Effect, type Layer } from "effect"
import { Approvals, Interlock, Policy, type ToolCalls, type ToolTransport, Verdict } from "../src/index.ts"

class Clock2 extends Context.Service<Clock2, { readonly now: () => number }>()("test/Clock2") {}

export const inferred: Layer.Layer<ToolCalls, unknown, ToolTransport> = Interlock.layer({
  hooks: {
    preToolCall: [{ match: "*", run: (call, ctx) => Verdict.rewrite({ args: { ...call.args, client: ctx.client } }) }],
    postToolCall: [{
      match: "*",
      run: (_call, result) => (result.isError === true ? Verdict.continue : Verdict.replace(result))
    }]
  },
  policy: Policy.allowAll,
  approvals: Approvals.layer({ approver: (request) => ({ decision: request.reason.length > 0 ? "allow" : "deny" }) })
})

export const withRequirement: Layer.Layer<ToolCalls, unknown, ToolTransport | Clock2> = Interlock.layer({
  hooks: { preToolCall: [{ match: "*", run: () => Effect.map(Clock2, () => Verdict.continue) }] },
  policy: Policy.allowAll
})

export const noHooks: Layer.Layer<ToolCalls, unknown, ToolTransport> = Interlock.layer({ policy: Policy.denyAll })
