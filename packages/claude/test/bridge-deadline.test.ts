/** The bridge's own deadline (below the hook's `timeout` in settings.json) and meta-tools governed as listings. */
import { assert, describe, it } from "@effect/vitest"
import { Hooks, Policy } from "@interlock/core"
import { Duration, Effect, Exit, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import { AuditSink, HookDeadline, isMetaTool } from "../src/index.ts"
import { bridge } from "./bridgeEnv.ts"

const pre = (tool_name: string, tool_input: Record<string, unknown> = {}) => ({
  hook_event_name: "PreToolUse",
  session_id: "s",
  tool_name,
  tool_input,
  tool_use_id: "toolu_1"
})

/** Runs the bridge forked, moves the TestClock by `millis`, and returns its result (it must have answered). */
const after = <A, E>(effect: Effect.Effect<A, E>, millis: number) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkChild(effect)
    yield* TestClock.adjust(millis)
    const exit = fiber.pollUnsafe()
    assert.isDefined(exit, "the bridge had not answered at its deadline")
    assert.isTrue(Exit.isSuccess(exit!))
    return (exit as Exit.Success<A, E>).value
  })

const hanging = Hooks.layer({
  preToolCall: [{ match: "*", id: "hang", timeout: "10 minutes", run: () => new Promise(() => {}) }]
})

describe("the bridge's deadline", () => {
  it.effect("a hook that hangs: the answer is a deny at nine tenths of the deadline, and it is audited", () =>
    Effect.gen(function*() {
      const r = yield* after(
        bridge(pre("Bash", { command: "ls" }), { hooks: hanging, deadline: Duration.seconds(10) }),
        9_000
      )
      assert.strictEqual(r.exitCode, 0)
      assert.deepStrictEqual(r.json.hookSpecificOutput.permissionDecision, "deny")
      assert.include(r.json.hookSpecificOutput.permissionDecisionReason, "deadline")
      assert.deepInclude(r.rows[0], { event: "PreToolUse", claudeDecision: "deny" })
    }))

  it.effect("an audit store that hangs too: the answer is still closed at the deadline", () =>
    Effect.gen(function*() {
      const stuck = Layer.succeed(AuditSink, { record: () => Effect.never })
      const r = yield* after(
        bridge(pre("Bash", { command: "ls" }), { hooks: hanging, audit: stuck, deadline: Duration.seconds(10) }),
        10_000
      )
      assert.deepStrictEqual(r.json.hookSpecificOutput.permissionDecision, "deny")
    }))

  it.effect("a policy that never answers a PermissionRequest denies it at the deadline", () =>
    Effect.gen(function*() {
      const never = Layer.succeed(Policy, { decide: () => Effect.never })
      const r = yield* after(
        bridge({ ...pre("Write", { file_path: "a" }), hook_event_name: "PermissionRequest" }, {
          policy: never,
          hooks: Hooks.empty,
          deadline: Duration.seconds(4)
        }),
        4_000
      )
      assert.deepStrictEqual(r.json.hookSpecificOutput.decision.behavior, "deny")
    }))

  it("the deadline keeps a margin below the hook's timeout: a quarter, at least 1 s, at most 5 s", () => {
    assert.strictEqual(HookDeadline.deadlineMillis(30), 25_000)
    assert.strictEqual(HookDeadline.deadlineMillis(8), 6_000)
    assert.strictEqual(HookDeadline.deadlineMillis(2), 1_000)
    assert.strictEqual(HookDeadline.deadlineMillis(1), 0)
    assert.strictEqual(HookDeadline.deadlineMillis(), 55_000)
    assert.strictEqual(Duration.toMillis(HookDeadline.remaining(8, 1_500)), 4_500)
    assert.strictEqual(Duration.toMillis(HookDeadline.remaining(8, 9_000)), 0)
  })

  it.effect.prop("for any timeout the deadline is below it by 1 to 5 s, or zero", [
    Schema.Finite.check(Schema.isBetween({ minimum: 0.001, maximum: 100_000 }))
  ], ([seconds]) =>
    Effect.sync(() => {
      const deadline = HookDeadline.deadlineMillis(seconds)
      const timeout = seconds * 1_000
      assert.isAtLeast(deadline, 0)
      assert.isAtMost(deadline, Math.max(0, timeout - 999.5))
      assert.isAtLeast(deadline, timeout - 5_000.5)
    }))

  it("--timeout: a positive number of seconds, else an error text; absent is the default", () => {
    assert.strictEqual(HookDeadline.parseTimeout("30"), 30)
    assert.strictEqual(HookDeadline.parseTimeout("2.5"), 2.5)
    assert.strictEqual(HookDeadline.parseTimeout(undefined), 60)
    for (const bad of ["0", "-1", "abc", "", "1e3", "Infinity"]) assert.isString(HookDeadline.parseTimeout(bad), bad)
  })
})

describe("meta-tools are listings", () => {
  const denyByDefault = Policy.rules({
    rules: [{ id: "no-search-secrets", match: "claude/ListMcpResourcesTool", decision: "deny", reason: "no" }],
    default: "deny"
  })

  it.effect("under default deny, ToolSearch gets no opinion ({}), an MCP tool's call is still denied", () =>
    Effect.gen(function*() {
      const search = yield* bridge(pre("ToolSearch", { query: "select:mcp__fs__read_file" }), {
        policy: denyByDefault,
        hooks: Hooks.empty
      })
      assert.deepStrictEqual(search.json, {})
      assert.deepInclude(search.rows[0], { tool: "ToolSearch", claudeDecision: "none" })
      const call = yield* bridge(pre("mcp__fs__read_file", { path: "a" }), {
        policy: denyByDefault,
        hooks: Hooks.empty
      })
      assert.strictEqual(call.json.hookSpecificOutput.permissionDecision, "deny")
    }))

  it.effect("a rule that names a meta-tool still decides it", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("ListMcpResourcesTool"), { policy: denyByDefault, hooks: Hooks.empty })
      assert.deepInclude(r.json.hookSpecificOutput, { permissionDecision: "deny", permissionDecisionReason: "no" })
    }))

  it("only the tools that select or describe tools are meta-tools", () => {
    assert.isTrue(isMetaTool("ToolSearch"))
    for (const name of ["Bash", "Read", "toolsearch", "mcp__x__ToolSearch"]) assert.isFalse(isMetaTool(name), name)
  })
})
