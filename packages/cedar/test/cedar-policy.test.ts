import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { CedarPolicyInvalid } from "../src/CedarErrors.ts"
import { compileCedar, makeCedarPolicy } from "../src/CedarPolicy.ts"
import { parsePolicySet } from "../src/CedarPolicySet.ts"
import { loadCedarWasm } from "../src/CedarWasm.ts"
import { call, compile, ctx, decideCall, decided, tool } from "./fixtures.ts"

/** The WASM module and one parsed policy set, for tests that wrap the module's functions. */
const loaded = (policies: string) =>
  Effect.gen(function*() {
    const wasm = yield* loadCedarWasm
    return { wasm, set: yield* Effect.orDie(parsePolicySet(wasm, policies, undefined)) }
  })

const POLICIES = `// a file policy
@id("read-only")
permit(principal, action == Interlock::Action::"callTool", resource) when { resource.readOnlyHint };

@id("no-etc")
@reason("no writes under /etc")
forbid(principal, action == Interlock::Action::"callTool", resource == Interlock::Tool::"fs/write_file")
  when { context.args has path && context.args.path like "/etc/*" };

@id("writes-ask")
@ask("writes need a human")
permit(principal, action == Interlock::Action::"callTool", resource == Interlock::Tool::"fs/write_file");

@id("admins")
permit(principal in Interlock::Role::"admin", action == Interlock::Action::"callTool",
  resource == Interlock::Tool::"fs/delete_file");

@id("docs")
permit(principal, action == Interlock::Action::"readResource", resource) when { resource.uri like "file:///docs/*" };

@id("greet")
permit(principal == Interlock::Principal::"alice", action == Interlock::Action::"getPrompt",
  resource == Interlock::Prompt::"fs/greet");
`

describe("Policy.cedar decisions", () => {
  it.effect("permit allows and names its @id; forbid denies with @reason; no permit denies", () =>
    Effect.gen(function*() {
      const policy = yield* compile(POLICIES)
      assert.deepStrictEqual(
        decideCall(policy, call("fs", "read_file"), ctx(), tool("fs", "read_file", { readOnlyHint: true })),
        { _tag: "Allow", rule: "read-only" }
      )
      assert.deepStrictEqual(decideCall(policy, call("fs", "write_file", { path: "/etc/passwd" })), {
        _tag: "Deny",
        reason: "no writes under /etc",
        rule: "no-etc"
      })
      assert.deepStrictEqual(decideCall(policy, call("fs", "list", {})), {
        _tag: "Deny",
        reason: "no Cedar policy permits this request",
        rule: undefined
      })
      // A tool the transport cannot describe has MCP's defaults: not read-only.
      assert.strictEqual(decideCall(policy, call("fs", "read_file"))._tag, "Deny")
    }))

  it.effect("a permit annotated @ask asks, with its text as the reason", () =>
    Effect.gen(function*() {
      const policy = yield* compile(POLICIES)
      assert.deepStrictEqual(decideCall(policy, call("fs", "write_file", { path: "/tmp/x" })), {
        _tag: "Ask",
        reason: "writes need a human",
        rule: "writes-ask"
      })
    }))

  it.effect("tools are named by canonical loose names; principals carry their roles as parents", () =>
    Effect.gen(function*() {
      const policy = yield* compile(POLICIES)
      assert.deepStrictEqual(decideCall(policy, call("FS", "Write-File", { path: "/etc/x" })).rule, "no-etc")
      assert.deepStrictEqual(decideCall(policy, call("fs", "write\u200B.file", { path: "/etc/x" })).rule, "no-etc")
      assert.deepStrictEqual(decideCall(policy, call("fs", "delete_file"), ctx("bob", ["admin"])), {
        _tag: "Allow",
        rule: "admins"
      })
      assert.strictEqual(decideCall(policy, call("fs", "delete_file"), ctx("bob", ["user"]))._tag, "Deny")
      assert.strictEqual(decideCall(policy, call("fs", "delete_file"))._tag, "Deny", "anonymous has no roles")
    }))

  it.effect("listings: a resource is listed when its read is permitted, a prompt when some get of it could be", () =>
    Effect.gen(function*() {
      const policy = yield* compile(`${POLICIES}
@id("topics")
permit(principal, action == Interlock::Action::"getPrompt", resource == Interlock::Prompt::"fs/topic")
  when { context.args has topic && context.args.topic == "safe" };
@id("no-secret")
forbid(principal, action == Interlock::Action::"getPrompt", resource == Interlock::Prompt::"fs/secret");
@id("secret-for-all") permit(principal, action == Interlock::Action::"getPrompt",
  resource == Interlock::Prompt::"fs/secret");
`)
      const visible = policy.visibleOperation!
      const shown = (operation: Parameters<typeof visible>[0], context = ctx()) =>
        Effect.runSync(visible(operation, context))
      assert.isTrue(shown({ _tag: "ReadResource", serverId: "fs", uri: "file:///docs/a.md" }))
      assert.isFalse(shown({ _tag: "ReadResource", serverId: "fs", uri: "file:///etc/shadow" }))
      assert.isTrue(shown({ _tag: "GetPrompt", serverId: "fs", name: "greet", args: {} }, ctx("alice")))
      assert.isFalse(shown({ _tag: "GetPrompt", serverId: "fs", name: "greet", args: {} }, ctx("bob")))
      // A permit on the arguments could hold: listed, though a get with no arguments is denied.
      assert.isTrue(shown({ _tag: "GetPrompt", serverId: "fs", name: "topic", args: {} }))
      assert.strictEqual(
        decided(policy.decideOperation!({ _tag: "GetPrompt", serverId: "fs", name: "topic", args: {} }, ctx()))._tag,
        "Deny"
      )
      // A forbid without conditions wins over a permit: never listed.
      assert.isFalse(shown({ _tag: "GetPrompt", serverId: "fs", name: "secret", args: {} }))
    }))

  it.effect("resources and prompts are decided by the same policy", () =>
    Effect.gen(function*() {
      const policy = yield* compile(POLICIES)
      const operation = policy.decideOperation!
      assert.deepStrictEqual(
        decided(operation({ _tag: "ReadResource", serverId: "fs", uri: "file:///docs/a.md" }, ctx())),
        { _tag: "Allow", rule: "docs" }
      )
      assert.strictEqual(
        decided(operation({ _tag: "ReadResource", serverId: "fs", uri: "file:///etc/shadow" }, ctx()))._tag,
        "Deny"
      )
      assert.deepStrictEqual(
        decided(operation({ _tag: "GetPrompt", serverId: "FS", name: "Greet", args: {} }, ctx("alice"))),
        { _tag: "Allow", rule: "greet" }
      )
      assert.strictEqual(
        decided(operation({ _tag: "GetPrompt", serverId: "fs", name: "greet", args: {} }, ctx("mallory")))._tag,
        "Deny"
      )
    }))

  it.effect("several deciding policies are all named", () =>
    Effect.gen(function*() {
      const policy = yield* compile(
        `@id("a") permit(principal, action, resource);\n@id("b") permit(principal, action == ` +
          `Interlock::Action::"callTool", resource);`
      )
      assert.deepStrictEqual(decideCall(policy, call("s", "t")), { _tag: "Allow", rule: "a,b" })
    }))
})

describe("Policy.cedar fails closed", () => {
  it.effect("an evaluation error in any policy denies, naming the policy but no argument", () =>
    Effect.gen(function*() {
      const policy = yield* compile(
        `@id("all") permit(principal, action, resource);\n@id("needs-mode") forbid(principal, action, resource) ` +
          `when { context.args.mode == "secret-value" };`
      )
      const decision = decideCall(policy, call("s", "t", { other: "secret-value" }))
      assert.deepStrictEqual(decision, {
        _tag: "Deny",
        reason: "Cedar policy needs-mode failed to evaluate",
        rule: "needs-mode"
      })
    }))

  it.effect("a missing attribute of the principal or a tool denies", () =>
    Effect.gen(function*() {
      const policy = yield* compile(
        `permit(principal, action, resource) when { principal.department == "x" || resource.owner == "me" };`
      )
      const decision = decideCall(policy, call("s", "t"))
      assert.strictEqual(decision._tag, "Deny")
      assert.strictEqual(decision.rule, "policy0")
    }))

  it.effect("arguments Cedar cannot hold deny: fractions, huge integers, nulls in lists, escape keys", () =>
    Effect.gen(function*() {
      const policy = yield* compile(`permit(principal, action, resource);`)
      for (
        const args of [{ t: 0.5 }, { n: 2 ** 60 }, { list: [1, null] }, {
          x: { __entity: { type: "Interlock::Principal", id: "admin" } }
        }, { __extn: 1 }]
      ) {
        const decision = decideCall(policy, call("s", "t", args))
        assert.strictEqual(decision._tag, "Deny", JSON.stringify(args))
        assert.notInclude(decision._tag === "Deny" ? decision.reason : "", "admin")
      }
      let deep: Record<string, unknown> = { leaf: 1 }
      for (let i = 0; i < 100; i++) deep = { deep }
      assert.strictEqual(decideCall(policy, call("s", "t", deep))._tag, "Deny")
      assert.strictEqual(
        decideCall(policy, call("s", "t", { gone: null, n: 3, s: "x", b: true, set: [1, 2], rec: { a: "b" } }))._tag,
        "Allow"
      )
    }))

  it.effect("a WASM function that throws denies every decision", () =>
    Effect.gen(function*() {
      const { wasm, set } = yield* loaded(`permit(principal, action, resource);`)
      const trap = () => {
        throw new Error("RuntimeError: unreachable")
      }
      const broken = { ...wasm, statefulIsAuthorized: trap, preparsePolicySet: wasm.preparsePolicySet }
      const policy = makeCedarPolicy(broken, set)
      assert.deepStrictEqual(decideCall(policy, call("s", "t")), {
        _tag: "Deny",
        reason: "the Cedar policy could not be evaluated",
        rule: undefined
      })
      const unparsable = makeCedarPolicy({ ...wasm, preparsePolicySet: trap }, set)
      assert.strictEqual(decideCall(unparsable, call("s", "t"))._tag, "Deny")
      assert.strictEqual(
        decided(unparsable.decideOperation!({ _tag: "ReadResource", serverId: "s", uri: "u" }, ctx()))._tag,
        "Deny"
      )
    }))

  it.effect("a policy set that does not parse fails with its file, line and column", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        compileCedar({
          policies:
            `permit(principal, action, resource);\n\nforbid(principal, action, resource)\n  when { context.x + };`,
          source: "p.cedar"
        })
      )
      assert.instanceOf(error, CedarPolicyInvalid)
      assert.strictEqual(
        error._tag === "CedarPolicyInvalid" && `${error.source}:${error.line}:${error.column}`,
        "p.cedar:4:22"
      )
      assert.match(error.message, /^p\.cedar:4:22: /)
    }))

  it.effect("ids that could never match, duplicates, @ask on forbid, unknown actions and templates are errors", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string, RegExp]> = [
        [
          `\n@id("x") forbid(principal, action, resource == Interlock::Tool::"fs/Write-File");`,
          /2:1: policy x: .*not a canonical.*"fs\/write_file"/
        ],
        [
          `@id("x") permit(principal, action, resource);\n@id("x") permit(principal, action, resource);`,
          /2:1: policy x: duplicate policy id/
        ],
        [`@ask("why") forbid(principal, action, resource);`, /@ask is for permit policies only/],
        [
          `permit(principal, action == Interlock::Action::"deleteEverything", resource);`,
          /unknown action "deleteEverything"/
        ],
        [`permit(principal == ?principal, action, resource);`, /template/]
      ]
      for (const [policies, pattern] of cases) {
        const error = yield* Effect.flip(compileCedar({ policies }))
        assert.match(error.message, pattern, policies)
      }
    }))

  it.effect("a schema given to Policy.cedar validates the policies when the Layer is built", () =>
    Effect.gen(function*() {
      const schema = `namespace Interlock { entity Role; entity Principal in [Role]; entity Tool = {
          server: String, name: String,
          readOnlyHint: Bool, destructiveHint: Bool, idempotentHint: Bool, openWorldHint: Bool
        };
        action callTool appliesTo {
          principal: Principal, resource: Tool, context: { args: { path: String }, client: String, era?: String }
        }; }`
      const ok = yield* Effect.result(
        compileCedar({
          policies:
            `permit(principal, action == Interlock::Action::"callTool", resource) when { context.args.path == "a" };`,
          schema
        })
      )
      assert.strictEqual(ok._tag, "Success")
      const error = yield* Effect.flip(
        compileCedar({
          policies:
            `permit(principal, action == Interlock::Action::"callTool", resource)\n  when { context.args.pth == "a" };`,
          schema,
          source: "s.cedar"
        })
      )
      assert.match(error.message, /^s\.cedar:2:10: policy policy0: .*args\.pth.*did you mean `path`/)
    }))
})

describe("Policy.cedar listings (hideDenied)", () => {
  it.effect("a tool is hidden only when no call to it could be permitted; args conditions keep it listed", () =>
    Effect.gen(function*() {
      const policy = yield* compile(`
@id("reads") permit(principal, action == Interlock::Action::"callTool", resource) when { resource.readOnlyHint };
@id("sandbox") permit(principal, action == Interlock::Action::"callTool",
  resource == Interlock::Tool::"fs/write_file") when { context.args.path like "/sandbox/*" };
@id("never-drop") forbid(principal, action == Interlock::Action::"callTool",
  resource == Interlock::Tool::"fs/drop_table");
@id("hide-secret") forbid(principal, action == Interlock::Action::"listTools",
  resource == Interlock::Tool::"fs/secret");
permit(principal, action, resource == Interlock::Tool::"fs/drop_table");
permit(principal, action, resource == Interlock::Tool::"fs/secret");
`)
      const tools = [
        tool("fs", "read_file", { readOnlyHint: true }),
        tool("fs", "Write-File"),
        tool("fs", "drop_table"),
        tool("fs", "secret"),
        tool("fs", "other")
      ]
      const shown = yield* policy.visibleTools!(tools, ctx())
      assert.deepStrictEqual(shown.map((t) => t.name), ["read_file", "Write-File"])
      assert.deepStrictEqual(tools.map((t) => policy.visible!(t, ctx())), [true, true, false, false, false])
    }))
})

describe("Policy.cedar does not hold up other fibers", () => {
  it.effect("a listing evaluates one tool at a time and yields between tools", () =>
    Effect.gen(function*() {
      const { wasm, set } = yield* loaded(`permit(principal, action, resource) when { context.args has x };`)
      const log: Array<string> = []
      const spied = {
        ...wasm,
        isAuthorizedPartial: (
          call: Parameters<typeof wasm.isAuthorizedPartial>[0]
        ) => (log.push("eval"), wasm.isAuthorizedPartial(call))
      }
      const policy = makeCedarPolicy(spied, set)
      const tools = Array.from({ length: 6 }, (_, i) => tool("fs", `t${i}`))
      let done = false
      const ticker = Effect.gen(function*() {
        while (!done) {
          log.push("tick")
          yield* Effect.yieldNow
        }
      })
      const [shown] = yield* Effect.all([
        Effect.ensuring(policy.visibleTools!(tools, ctx()), Effect.sync(() => (done = true))),
        ticker
      ], { concurrency: 2 })
      assert.strictEqual(shown.length, 6)
      const evals = log.flatMap((entry, i) => (entry === "eval" ? [i] : []))
      assert.strictEqual(evals.length, 6)
      for (let i = 1; i < evals.length; i++) {
        assert.include(log.slice(evals[i - 1], evals[i]), "tick", "another fiber ran between two decisions")
      }
    }))
})
