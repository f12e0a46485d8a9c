/** Hooks that answer allow, ask or deny as a policy contribution (deny > ask > allow) and as an approver. */
import { assert, describe, it } from "@effect/vitest"
import {
  type ApprovalRequest,
  Approvals,
  Denied,
  HookContext,
  Interlock,
  Policy,
  type PolicyDecision,
  ToolCall
} from "@interlock/core"
import { Cause, Effect, Exit, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { ClaudeHooks, type ClaudeHooksConfig, type ClaudeReturn } from "../src/index.ts"
import { callTool, recording } from "./fixtures.ts"

const withPolicy = (config: ClaudeHooksConfig, options?: Parameters<typeof ClaudeHooks.policy>[1]) => {
  const transport = recording()
  const layer = Interlock.layer({ policy: ClaudeHooks.policy(config, options) }).pipe(Layer.provide(transport.layer))
  return { calls: transport.calls, layer }
}

const bash = { serverId: "claude", name: "Bash", args: { command: "rm -rf /" } }
const answers = (...values: Array<ClaudeReturn>): ClaudeHooksConfig => ({
  PreToolUse: [{ matcher: "Bash", hooks: values.map((v) => () => v) }]
})

const decideWith = (config: ClaudeHooksConfig, options?: Parameters<typeof ClaudeHooks.decider>[1]) =>
  Effect.gen(function*() {
    const hooks = yield* ClaudeHooks.compile(config)
    const call = new ToolCall({ ...bash, callId: "c1", meta: undefined })
    const ctx = new HookContext({ client: "t", serverId: "claude", assigns: {} })
    return yield* ClaudeHooks.decider(hooks, options)(call, ctx)
  })

describe("ClaudeHooks.policy", () => {
  it.effect("an allow from a hook is a policy allow naming the hook as its rule", () => {
    const { calls, layer } = withPolicy(answers(["allow", {}]))
    return Effect.gen(function*() {
      const exit = yield* callTool("claude", "Bash", bash.args)
      assert.isTrue(Exit.isSuccess(exit))
      assert.strictEqual(calls.length, 1)
      assert.deepStrictEqual((exit as Exit.Success<any, any>).value.receipt.policy, {
        decision: "allow",
        rule: "PreToolUse[0].0"
      })
    }).pipe(Effect.provide(layer))
  })

  it.effect("deny > ask > allow, whatever the order", () =>
    Effect.gen(function*() {
      const cases: Array<[Array<ClaudeReturn>, PolicyDecision["_tag"]]> = [
        [[["allow", {}], ["deny", { permissionDecisionReason: "no" }]], "Deny"],
        [[["deny", {}], ["allow", {}]], "Deny"],
        [[["allow", {}], ["ask", { permissionDecisionReason: "sure?" }], "ok"], "Ask"],
        [[["ask", {}], ["deny", {}], ["allow", {}]], "Deny"],
        [["ok", ["allow", {}], "ok"], "Allow"]
      ]
      for (const [values, expected] of cases) {
        assert.strictEqual((yield* decideWith(answers(...values)))._tag, expected, JSON.stringify(values))
      }
      assert.deepStrictEqual(yield* decideWith(answers(["allow", {}], ["deny", { permissionDecisionReason: "no" }])), {
        _tag: "Deny",
        reason: "no",
        rule: "PreToolUse[0].1"
      })
    }))

  it.effect("an Ask goes to the approvals; with none configured the call is denied", () => {
    const { calls, layer } = withPolicy(answers(["ask", { permissionDecisionReason: "confirm rm" }]))
    return Effect.gen(function*() {
      const exit = yield* callTool("claude", "Bash", bash.args)
      const error = Cause.findErrorOption((exit as Exit.Failure<any, any>).cause)
      assert.instanceOf(error._tag === "Some" ? error.value : undefined, Denied)
      assert.strictEqual(calls.length, 0)
    }).pipe(Effect.provide(layer))
  })

  it.effect("no opinion: the fallback decides (default deny)", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* decideWith(answers("ok")), {
        _tag: "Deny",
        reason: "no hook allows this call",
        rule: undefined
      })
      assert.strictEqual((yield* decideWith(answers("ok"), { fallback: "allow" }))._tag, "Allow")
      assert.strictEqual(
        (yield* decideWith({ PreToolUse: [{ matcher: "Write", hooks: [() => "allow"] }] }, { fallback: "ask" }))._tag,
        "Ask"
      )
      const custom = yield* decideWith(answers("ok"), {
        fallback: () => Effect.succeed({ _tag: "Allow", rule: "base" })
      })
      assert.deepStrictEqual(custom, { _tag: "Allow", rule: "base" })
    }))

  it.effect("fail closed: a failing hook, junk, halt, block, or an allow that rewrites, each denies", () =>
    Effect.gen(function*() {
      const boom = () => {
        throw new Error("x")
      }
      const hooks: Array<() => unknown> = [
        boom,
        () => "yes",
        () => ["halt", { stopReason: "stop" }],
        () => ["block", { reason: "no" }],
        () => ["allow", { updatedInput: { command: "ls" } }]
      ]
      for (const hook of hooks) {
        const config: ClaudeHooksConfig = { PreToolUse: [{ hooks: [() => "allow", hook as never] }] }
        assert.strictEqual((yield* decideWith(config))._tag, "Deny")
      }
    }))

  it.effect("a hook that never answers denies at its deadline (TestClock)", () =>
    Effect.gen(function*() {
      const config: ClaudeHooksConfig = { PreToolUse: [{ hooks: [{ run: () => Effect.never, timeout: 2_000 }] }] }
      const fiber = yield* Effect.forkChild(decideWith(config, { fallback: "allow" }))
      yield* TestClock.adjust(1_999)
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust(1)
      const decision = yield* Fiber.join(fiber)
      assert.deepStrictEqual(decision, {
        _tag: "Deny",
        reason: "hook PreToolUse[0].0 failed: timeout",
        rule: "PreToolUse[0].0"
      })
    }))
})

describe("ClaudeHooks.approver (PermissionRequest)", () => {
  const request = (): ApprovalRequest => ({
    call: new ToolCall({ ...bash, callId: "c1", meta: undefined }),
    ctx: new HookContext({ client: "t", serverId: "claude", assigns: {} }),
    reason: "policy asks"
  })
  const approve = (...values: Array<unknown>) =>
    Effect.flatMap(
      ClaudeHooks.compile({ PermissionRequest: [{ hooks: values.map((v) => () => v as never) }] }),
      (hooks) => ClaudeHooks.approver(hooks)(request())
    )

  it.effect("allow approves, deny refuses with its message, nothing or junk refuses", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* approve("allow"), { decision: "allow" })
      assert.deepStrictEqual(yield* approve(["allow", {}], ["deny", { message: "not now" }]), {
        decision: "deny",
        reason: "not now"
      })
      assert.strictEqual((yield* approve("ok")).decision, "deny")
      assert.strictEqual((yield* approve(["ask", {}])).decision, "deny")
      assert.strictEqual((yield* approve(["allow", { updatedInput: { command: "ls" } }])).decision, "deny")
    }))

  it.effect("works as the Approvals service: an Ask from a rule is approved by the hook", () =>
    Effect.gen(function*() {
      const hooks = yield* ClaudeHooks.compile({ PermissionRequest: [{ matcher: "Bash", hooks: [() => "allow"] }] })
      const transport = recording()
      const layer = Interlock.layer({
        policy: Policy.rules({ rules: [{ match: "claude/Bash", decision: "ask" }] }),
        approvals: Approvals.layer({ approver: ClaudeHooks.approver(hooks) })
      }).pipe(Layer.provide(transport.layer))
      const exit = yield* Effect.provide(callTool("claude", "Bash", bash.args), layer)
      assert.isTrue(Exit.isSuccess(exit))
      assert.deepStrictEqual((exit as Exit.Success<any, any>).value.receipt.approval, {
        decision: "allow",
        source: "approver"
      })
    }))
})
