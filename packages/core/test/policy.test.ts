import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import {
  ConfigError,
  Denied,
  effectiveHints,
  HookContext,
  Interlock,
  NativeTool,
  Policy,
  type PolicyDecision,
  type PolicyRule,
  Principal,
  Tool,
  ToolCalls,
  ToolTransport
} from "../src/index.ts"
import { makeToolCall } from "../src/model/ToolCall.ts"
import { parseMatcher } from "../src/policy/Matcher.ts"
import { canonicalName } from "../src/policy/Names.ts"
import { decideAtOnce } from "../src/policy/Policy.ts"
import { compileRules } from "../src/policy/PolicyRules.ts"
import { call, client, errorOf } from "./fixtures.ts"

const ctx = (principal?: string) =>
  new HookContext({
    client: "t",
    serverId: "fs",
    assigns: {},
    principal: principal === undefined ? undefined : new Principal({ id: principal })
  })
const toolCall = (serverId: string, name: string, args: Record<string, any> = {}) =>
  makeToolCall({ serverId, name, args, callId: "c" })

const decide = (
  rules: ReadonlyArray<PolicyRule>,
  fallback: "allow" | "deny" | "ask",
  serverId: string,
  name: string,
  args = {},
  principal?: string
): PolicyDecision => {
  const f = compileRules({ rules, default: fallback })
  if (f instanceof ConfigError) throw new Error(f.message)
  return f.decide(toolCall(serverId, name, args), ctx(principal))
}

describe("Policy.rules", () => {
  it("the first rule that applies decides; loose names; default otherwise", () => {
    const rules: Array<PolicyRule> = [
      { id: "no-writes", match: "fs/write_*", decision: "deny", reason: "read only" },
      { id: "ask-delete", match: "delete_file", decision: "ask" },
      { id: "fs-ok", match: "fs/*", decision: "allow" }
    ]
    assert.deepStrictEqual(decide(rules, "deny", "FS", "Write-File"), {
      _tag: "Deny",
      reason: "read only",
      rule: "no-writes"
    })
    assert.deepStrictEqual(decide(rules, "deny", "fs", "delete_file"), {
      _tag: "Ask",
      reason: "approval required by policy",
      rule: "ask-delete"
    })
    assert.deepStrictEqual(decide(rules, "deny", "fs", "read_file"), { _tag: "Allow", rule: "fs-ok" })
    assert.strictEqual(decide(rules, "deny", "web", "fetch")._tag, "Deny")
    assert.strictEqual(decide(rules, "allow", "web", "fetch")._tag, "Allow")
  })

  it("predicates on args and principals narrow a rule; a throwing predicate denies", () => {
    const rules: Array<PolicyRule> = [
      { id: "sandbox", match: "fs/*", decision: "allow", when: (args) => String(args.path).startsWith("./sandbox") },
      { id: "alice", match: "fs/*", decision: "allow", principals: ["alice"] },
      {
        id: "weird",
        match: "web/*",
        decision: "allow",
        when: () => {
          throw new Error("boom")
        }
      }
    ]
    assert.strictEqual(decide(rules, "deny", "fs", "read", { path: "./sandbox/a" }).rule, "sandbox")
    assert.strictEqual(decide(rules, "deny", "fs", "read", { path: "/etc/passwd" })._tag, "Deny")
    assert.strictEqual(decide(rules, "deny", "fs", "read", { path: "/etc/passwd" }, "alice").rule, "alice")
    assert.deepStrictEqual(decide(rules, "allow", "web", "get"), {
      _tag: "Deny",
      reason: "the condition of rule weird failed",
      rule: "weird"
    })
  })

  it("a role:NAME entry in principals names a role, never an id", () => {
    const f = compileRules({
      rules: [{ id: "admins", match: "fs/*", decision: "allow", principals: ["role:admin", "carol"] }],
      default: "deny"
    })
    if (f instanceof ConfigError) throw new Error(f.message)
    const as = (id: string, roles?: ReadonlyArray<string>) =>
      f.decide(
        toolCall("fs", "write"),
        new HookContext({
          client: "t",
          serverId: "fs",
          assigns: {},
          principal: new Principal({ id, ...(roles === undefined ? {} : { roles: [...roles] }) })
        })
      )._tag
    assert.strictEqual(as("bob", ["admin"]), "Allow")
    assert.strictEqual(as("carol"), "Allow")
    assert.strictEqual(as("bob", ["viewer"]), "Deny")
    assert.strictEqual(as("role:admin"), "Deny")
    assert.strictEqual(as("admin"), "Deny")
    assert.strictEqual(f.decide(toolCall("fs", "write"), ctx())._tag, "Deny")
  })

  it("config errors name the rule at fault", () => {
    for (
      const [config, path] of [
        [{ rules: [{ match: "*", decision: "maybe" }] }, "policy.rules[0]"],
        [{ rules: [{ match: "*", decision: "allow" }, { match: "", decision: "deny" }] }, "policy.rules[1]"],
        [{ rules: [{ match: "*", decision: "allow", extra: 1 }] }, "policy.rules[0]"],
        [
          { rules: [{ id: "a", match: "*", decision: "allow" }, { id: "a", match: "x", decision: "deny" }] },
          "policy.rules[1]"
        ],
        [{ rules: "nope" }, "policy.rules"],
        [{ rules: [], default: "sometimes" }, "policy.default"]
      ] as const
    ) {
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

  it.effect.prop("the index agrees with a first-match scan over every rule", [
    Schema.Array(ruleInput),
    Schema.Literals(["a", "b", "c"]),
    name
  ], ([inputs, server, tool]) =>
    Effect.sync(() => {
      const rules: Array<PolicyRule> = inputs.map((r, i) => ({
        id: `r${i}`,
        decision: r.decision,
        match: r.regex
          ? { server: r.server, regex: new RegExp(`^${r.tool.slice(0, 1)}`) }
          : `${r.server}/${r.glob ? `${r.tool.slice(0, 1)}*` : r.tool}`
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
      for (
        const bad of [Effect.fail("x"), Effect.die("x"), Effect.succeed({ _tag: "Allow!" }), Effect.succeed("allow")]
      ) {
        const { layer, log } = client({}, { policy: Policy.make(() => bad as Effect.Effect<PolicyDecision>) })
        const error = errorOf(yield* Effect.provide(call("echo"), layer))
        assert.instanceOf(error, Denied)
        assert.strictEqual((error as Denied).reason._tag, "PolicyDenied")
        assert.strictEqual(log.calls.length, 0)
      }
    }))

  it.effect("a policy that hangs is denied at its deadline (TestClock)", () =>
    Effect.gen(function*() {
      const { layer, log } = client({}, {
        policy: Policy.make(() => Effect.never),
        settings: { policyTimeout: "2 seconds" }
      })
      const fiber = yield* Effect.forkChild(Effect.provide(call("echo"), layer))
      yield* TestClock.adjust("1999 millis")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      const error = errorOf(yield* Fiber.join(fiber))
      assert.deepStrictEqual((error as Denied).reason, {
        _tag: "PolicyDenied",
        rule: undefined,
        message: "the policy did not decide in time"
      })
      assert.strictEqual(log.calls.length, 0)
    }))

  it.effect("a custom Effect policy can use services and sees the principal", () =>
    Effect.gen(function*() {
      const layer = Policy.make((_call, ctx) =>
        Effect.succeed(ctx.principal?.id === "root" ? Policy.allow("root") : Policy.deny("only root"))
      )
      const policy = yield* Effect.provide(
        Effect.gen(function*() {
          return yield* Policy
        }),
        layer
      )
      assert.deepStrictEqual(yield* policy.decide(toolCall("s", "t"), ctx("root")), { _tag: "Allow", rule: "root" })
      assert.strictEqual((yield* policy.decide(toolCall("s", "t"), ctx("bob")))._tag, "Deny")
      const bad = yield* Effect.exit(Layer.build(Policy.rules({ rules: [{ match: 3 as never, decision: "allow" }] })))
      assert.isTrue(Exit.isFailure(bad))
    }))
})

describe("one policy over listings and calls; annotations as inputs", () => {
  const readTool = NativeTool.make({
    name: "read",
    parameters: Schema.Struct({}),
    annotations: { readOnlyHint: true },
    run: () => "r"
  })
  const dropTool = NativeTool.make({
    name: "drop",
    parameters: Schema.Struct({}),
    annotations: { destructiveHint: true },
    run: () => "d"
  })
  const plainTool = NativeTool.make({
    name: "plain",
    parameters: Schema.Struct({ path: Schema.String }),
    run: () => "p"
  })
  const policy = Policy.rules({
    rules: [
      {
        id: "destructive-needs-a-human",
        match: "*",
        annotations: { destructiveHint: true, readOnlyHint: false },
        decision: "deny",
        reason: "destructive"
      },
      { id: "read-only", match: "*", annotations: { readOnlyHint: true }, decision: "allow" }
    ],
    default: "deny"
  })
  const layerWith = (hideDenied: boolean) =>
    Interlock.layer({ policy, hideDenied }).pipe(
      Layer.provide(ToolTransport.fromTools([readTool, dropTool, plainTool]))
    )

  it("effective hints follow MCP's defaults, and an undescribed tool counts as destructive", () => {
    assert.deepStrictEqual(effectiveHints(undefined), {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true
    })
    assert.deepStrictEqual(
      effectiveHints(
        new Tool({
          serverId: "s",
          name: "t",
          inputSchema: {},
          annotations: { readOnlyHint: true, destructiveHint: true }
        })
      ),
      { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true }
    )
  })

  it.effect("rules on annotations decide calls; tools without annotations are treated as destructive", () =>
    Effect.gen(function*() {
      const calls = yield* ToolCalls
      const read = yield* calls.callTool({ serverId: "local", name: "read" })
      assert.deepStrictEqual(read.receipt?.policy, { decision: "allow", rule: "read-only" })
      for (const name of ["drop", "plain"]) {
        const error = yield* Effect.flip(calls.callTool({ serverId: "local", name, args: { path: "x" } }))
        assert.deepStrictEqual((error as Denied).reason, {
          _tag: "PolicyDenied",
          rule: "destructive-needs-a-human",
          message: "destructive"
        })
      }
    }).pipe(Effect.provide(layerWith(false))))

  it.effect("with hideDenied, listings drop the tools every call to which would be denied", () =>
    Effect.gen(function*() {
      const shown = yield* Effect.provide(Effect.flatMap(ToolCalls, (c) => c.listTools()), layerWith(true))
      assert.deepStrictEqual(shown.map((t) => t.name), ["read"])
      const all = yield* Effect.provide(Effect.flatMap(ToolCalls, (c) => c.listTools()), layerWith(false))
      assert.deepStrictEqual(all.map((t) => t.name), ["read", "drop", "plain"])
      const conditional = compileRules({
        rules: [{ match: "*", decision: "allow", when: (args) => args.ok === true }],
        default: "deny"
      })
      assert.notInstanceOf(conditional, ConfigError)
      if (!(conditional instanceof ConfigError)) {
        assert.isTrue(
          conditional.visible(new Tool({ serverId: "s", name: "t", inputSchema: {} }), ctx()),
          "a rule with a condition might allow"
        )
      }
      const bad = compileRules({ rules: [{ match: "*", decision: "allow", annotations: { readOnly: true } as never }] })
      assert.strictEqual((bad as ConfigError).path, "policy.rules[0]")
    }))
})

describe("decideAtOnce", () => {
  const rules = Policy.rules({
    rules: [
      { id: "no-writes", match: "fs/write_*", decision: "deny", reason: "read only" },
      { id: "ask-delete", match: "delete_*", decision: "ask" },
      { id: "root", match: "*", principals: ["root"], decision: "allow" }
    ],
    default: "deny"
  })
  const names = Schema.Literals(["write_file", "delete_file", "read_file"])
  it.effect.prop("a built-in answers at once what its decide answers, for any call", [
    names,
    Schema.Literals(["fs", "web"]),
    Schema.Boolean
  ], ([name, serverId, root]) =>
    Effect.gen(function*() {
      for (const layer of [rules, Policy.allowAll, Policy.denyAll]) {
        const policy = yield* Effect.provide(Effect.service(Policy), layer)
        const call = toolCall(serverId, name)
        const context = ctx(root ? "root" : undefined)
        const atOnce = decideAtOnce(policy)
        assert.isDefined(atOnce)
        assert.deepStrictEqual(atOnce!(call, context), yield* policy.decide(call, context))
      }
    }))

  it.effect("a wrapper that brings its own decide, and a custom policy, are never answered at once", () =>
    Effect.gen(function*() {
      const builtIn = yield* Effect.provide(Effect.service(Policy), Policy.denyAll)
      assert.isUndefined(decideAtOnce({ ...builtIn, decide: () => Effect.succeed(Policy.allow()) }))
      const custom = yield* Effect.provide(Effect.service(Policy), Policy.make(() => Effect.succeed(Policy.allow())))
      assert.isUndefined(decideAtOnce(custom))
    }))
})
