/**
 * Test helpers for approvals of 2026-07-28 hosts: the host input the front provides a call with (a
 * first request, or a retry with an answer to the approval form), what a call ended in, and a gateway's
 * calls over a transfer tool that records its runs.
 */
import { assert } from "@effect/vitest"
import { type JsonObject, NativeTool, Principal, type ToolResult, ToolTransport } from "@interlock/core"
import { Context, Effect, Layer, Redacted, Result, Schema } from "effect"
import { AuditStore } from "../src/audit/AuditStore.ts"
import * as SqliteAuditStore from "../src/audit/SqliteAuditStore.ts"
import { APPROVAL_INPUT } from "../src/calls/ApprovalRound.ts"
import { type GatewayCallError, GatewayCalls } from "../src/calls/GatewayCalls.ts"
import { CurrentHostInput, type HostInput, type InputRequired } from "../src/calls/InputRound.ts"
import { ApprovalQueue } from "../src/state/ApprovalQueue.ts"
import { StateSeal } from "../src/state/StateSeal.ts"
import { UsedStates } from "../src/state/UsedStates.ts"
import { planOf } from "./fixtures.ts"

/** A principal of the tests. */
export const who = (id: string) => new Principal({ id })

/** The host input of a first request of a 2026-07-28 host (no answers yet). */
export const firstRequest = (): HostInput => ({ inputResponses: {}, requestState: undefined })

/** The host input of a retry that answers the approval form with `answer`, echoing `requestState`. */
export const retry = (requestState: string | undefined, answer: unknown): HostInput => ({
  inputResponses: { [APPROVAL_INPUT]: answer },
  requestState
})

/** An explicit yes to the approval form. */
export const APPROVE = { action: "accept", content: { approve: true } }

/** How a call ended: its InputRequired, its result's text, or its error's tag and message. */
export type Ended =
  | { readonly _tag: "InputRequired"; readonly input: InputRequired }
  | { readonly _tag: "Ok"; readonly text: string }
  | { readonly _tag: "Error"; readonly error: string }

/** Runs a call and says how it ended. */
export const ended = (
  call: Effect.Effect<ToolResult, GatewayCallError>
): Effect.Effect<Ended> =>
  Effect.map(Effect.result(call), (result): Ended => {
    if (Result.isSuccess(result)) {
      return {
        _tag: "Ok",
        text: result.success.content.map((block) => ("text" in block ? String(block.text) : "")).join("")
      }
    }
    const error = result.failure
    return error._tag === "InputRequired"
      ? { _tag: "InputRequired", input: error }
      : { _tag: "Error", error: `${error._tag}: ${error.message}` }
  })

/** The sealed state of a call that ended InputRequired (fails the test otherwise). */
export const stateOf = (end: Ended): string =>
  end._tag === "InputRequired"
    ? end.input.requestState
    : assert.fail(`expected InputRequired, the call ended ${JSON.stringify(end)}`)

/** The approvals.stateKey of the tests. */
export const KEY = Redacted.make("the approval state key of the tests, long enough")

/** An account number the config redacts: no approval form, state or row may show it. */
export const ACCOUNT = "ACCT-12345678"

/** A transfer tool that records every run, so a test sees whether it ran. */
const transferTools = (runs: Array<unknown>) => [
  NativeTool.make({
    name: "transfer",
    parameters: Schema.Struct({ to: Schema.String, amount: Schema.Number }),
    run: (args) => {
      runs.push(args)
      return `sent ${args.amount}`
    }
  })
]

/** A config whose rule `rule` asks for every transfer. */
export const askConfig = (rule = "money") => ({
  policy: {
    default: "allow",
    rules: [{ id: rule, match: "files/transfer", decision: "ask", reason: "moving money needs a person" }]
  },
  redact: [{ pattern: "ACCT-[0-9]+" }],
  approvals: { timeoutSeconds: 60 }
})

/** A seal keyed by {@link KEY} and fresh single-use marks. */
export const keyed = Layer.merge(StateSeal.fromSecret(KEY), UsedStates.memory)

/** The arguments of the transfer that is asked for. */
export const ARGS: JsonObject = { to: ACCOUNT, amount: 10 }

/**
 * One gateway's calls over the transfer tool (`runs` records each run), with the given seal and marks, in the test's
 * scope.
 */
export const replica = (states: Layer.Layer<StateSeal | UsedStates> = keyed, rule?: string) =>
  Effect.gen(function*() {
    const runs: Array<unknown> = []
    const plan = yield* planOf(askConfig(rule))
    const context = yield* Layer.build(
      GatewayCalls.layer(plan).pipe(
        Layer.provideMerge(
          Layer.mergeAll(
            ToolTransport.fromTools(transferTools(runs), { serverId: "files" }),
            SqliteAuditStore.layer(":memory:"),
            ApprovalQueue.layer,
            states
          )
        )
      )
    )
    const calls = Context.get(context, GatewayCalls)
    /** A transfer by `principal` (bob) with the given host input (none: a 2025 host's) and arguments. */
    const transfer = (input: HostInput | undefined, args: JsonObject = ARGS, principal = who("bob")) =>
      ended(
        Effect.provideService(
          calls.callTool({ serverId: "files", name: "transfer", args }, { principal }),
          CurrentHostInput,
          input
        )
      )
    return {
      runs,
      calls,
      transfer,
      store: Context.get(context, AuditStore),
      queue: Context.get(context, ApprovalQueue)
    }
  })
