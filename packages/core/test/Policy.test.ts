import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import { ConfigError, Denied, HookContext, Policy, type PolicyDecision, type PolicyRule, Principal } from "../src/index.ts"
import { compileRules } from "../src/Policy.ts"
import { makeToolCall } from "../src/ToolCall.ts"
import { canonicalName } from "../src/Names.ts"
import { parseMatcher } from "../src/Matcher.ts"
import { call, client, errorOf } from "./fixtures.ts"

const ctx = (principal?: string) =>
  new HookContext({ client: "t", serverId: "fs", assigns: {}, principal: principal === undefined ? undefined : new Principal({ id: principal }) })
const toolCall = (serverId: string, name: string, args: Record<string, any> = {}) => makeToolCall({ serverId, name, args, callId: "c" })

const decide = (rules: ReadonlyArray<PolicyRule>, fallback: "allow" | "deny" | "ask", serverId: string, name: string, args = {}, principal?: string): PolicyDecision => {
  const f = compileRules({ rules, default: fallback })
  if (f instanceof ConfigError) throw new Error(f.message)
  return f(toolCall(serverId, name, args), ctx(principal))
}

describe("Policy.rules", () => {
  it("the first rule that applies decides; loose names; default otherwise", () => {
    const rules: Array<PolicyRule> = [
      { id: "no-writes", match: "fs/write_*", decision: "deny", reason: "read only" },
      { id: "ask-delete", match: "delete_file", decision: "ask" },
      { id: "fs-ok", match: "fs/*", decision: "allow" }
    ]
    assert.deepStrictEqual(decide(rules, "deny", "FS", "Write-File"), { _tag: "Deny", reason: "read only", rule: "no-writes" })
    assert.deepStrictEqual(decide(rules, "deny", "fs", "delete_file"), { _tag: "Ask", reason: "approval required by policy", rule: "ask-delete" })
    assert.deepStrictEqual(decide(rules, "deny", "fs", "read_file"), { _tag: "Allow", rule: "fs-ok" })
    assert.strictEqual(decide(rules, "deny", "web", "fetch")._tag, "Deny")
    assert.strictEqual(decide(rules, "allow", "web", "fetch")._tag, "Allow")
  })

  it("predicates on args and principals narrow a rule; a throwing predicate denies", () => {
    const rules: Array<PolicyRule> = [
      { id: "sandbox", match: "fs/*", decision: "allow", when: (args) => String(args.path).startsWith("./sandbox") },
      { id: "alice", match: "fs/*", decision: "allow", principals: ["alice"] },
      { id: "weird", match: "web/*", decision: "allow", when: () => { throw new Error("boom") } }
    ]
    assert.strictEqual(decide(rules, "deny", "fs", "read", { path: "./sandbox/a" }).rule, "sandbox")
    assert.strictEqual(decide(rules, "deny", "fs", "read", { path: "/etc/passwd" })._tag, "Deny")
    assert.strictEqual(decide(rules, "deny", "fs", "read", { path: "/etc/passwd" }, "alice").rule, "alice")
    assert.deepStrictEqual(decide(rules, "allow", "web", "get"), { _tag: "Deny", reason: "the condition of rule weird failed", rule: "weird" })
  })

  it("config errors name the rule at fault", () => {
    for (const [config, path] of [
      [{ rules: [{ match: "*", decision: "maybe" }] }, "policy.rules[0]"],
      [{ rules: [{ match: "*", decision: "allow" }, { match: "", decision: "deny" }] }, "policy.rules[1]"],
      [{ rules: [{ match: "*", decision: "allow", extra: 1 }] }, "policy.rules[0]"],
      [{ rules: [{ id: "a", match: "*", decision: "allow" }, { id: "a", match: "x", decision: "deny" }] }, "policy.rules[1]"],
      [{ rules: "nope" }, "policy.rules"],
      [{ rules: [], default: "sometimes" }, "policy.default"]
    ] as const) {
      const out = compileRules(config as never)
      assert.instanceOf(out, ConfigError)
      assert.strictEqual((out as ConfigError).path, path)
    }
  })

  const name = Schema.String.check(Schema.isPattern(/^[a-c][a-c_.-]{0,3}$/))
  const ruleInput = Schema.Struct({
    server: Schema.Literals(["a", "b", "*", "a*"]),
    tool: name,
    glob: Schema.Boolean,
    regex: Schema.Boolean,
    decision: Schema.Literals(["allow", "deny", "ask"])
  })

  it.effect.prop("the index agrees with a first-match scan over every rule", [Schema.Array(ruleInput), Schema.Literals(["a", "b", "c"]), name], ([inputs, server, tool]) =>
    Effect.sync(() => {
      const rules: Array<PolicyRule> = inputs.map((r, i) => ({
        id: `r${i}`,
        decision: r.decision,
        match: r.regex ? { server: r.server, regex: new RegExp(`^${r.tool.slice(0, 1)}`) } : `${r.server}/${r.glob ? `${r.tool.slice(0, 1)}*` : r.tool}`
      }))
      const indexed = decide(rules, "deny", server, tool)
      const scanned = rules.find((rule) => {
        const m = parseMatcher(rule.match)
        return m._tag === "Success" && m.success.test(server, tool)
      })
      assert.strictEqual(indexed.rule, scanned?.id, `${canonicalName(tool)} on ${server}`)
    }))
})

describe("custom policies fail closed", () => {
  it.effect("a policy that fails, dies or answers junk denies", () =>
    Effect.gen(function*() {
      for (const bad of [Effect.fail("x"), Effect.die("x"), Effect.succeed({ _tag: "Allow!" }), Effect.succeed("allow")]) {
        const { layer, log } = client({}, { policy: Policy.make(() => bad as Effect.Effect<PolicyDecision>) })
        const error = errorOf(yield* Effect.provide(call("echo"), layer))
        assert.instanceOf(error, Denied)
        assert.strictEqual((error as Denied).reason._tag, "PolicyDenied")
        assert.strictEqual(log.calls.length, 0)
      }
    }))

  it.effect("a policy that hangs is denied at its deadline (TestClock)", () =>
    Effect.gen(function*() {
      const { layer, log } = client({}, { policy: Policy.make(() => Effect.never), settings: { policyTimeout: "2 seconds" } })
      const fiber = yield* Effect.forkChild(Effect.provide(call("echo"), layer))
      yield* TestClock.adjust("1999 millis")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      const error = errorOf(yield* Fiber.join(fiber))
      assert.deepStrictEqual((error as Denied).reason, { _tag: "PolicyDenied", rule: undefined, message: "the policy did not decide in time" })
      assert.strictEqual(log.calls.length, 0)
    }))

  it.effect("a custom Effect policy can use services and sees the principal", () =>
    Effect.gen(function*() {
      const layer = Policy.make((_call, ctx) => Effect.succeed(ctx.principal?.id === "root" ? Policy.allow("root") : Policy.deny("only root")))
      const policy = yield* Effect.provide(Effect.gen(function*() { return yield* Policy }), layer)
      assert.deepStrictEqual(yield* policy.decide(toolCall("s", "t"), ctx("root")), { _tag: "Allow", rule: "root" })
      assert.strictEqual((yield* policy.decide(toolCall("s", "t"), ctx("bob")))._tag, "Deny")
      const bad = yield* Effect.exit(Layer.build(Policy.rules({ rules: [{ match: 3 as never, decision: "allow" }] })))
      assert.isTrue(Exit.isFailure(bad))
    }))
})
