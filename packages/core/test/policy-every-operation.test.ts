/**
 * Core's side of one policy over every operation: listings of resources, templates and prompts
 * (visibleOperations, with hideDenied only), and the decisions alone of what a subscription or a
 * completion leads to (decideRead, decidePrompt), for custom policies and JSON rules (`on`).
 * Fail closed: a policy that fails or hangs hides the entry and refuses the decision.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import {
  ConfigError,
  type Denied,
  Interlock,
  NativeTool,
  Policy,
  type PolicyOperation,
  type PolicyShape,
  type RulesConfig,
  ToolCalls,
  ToolTransport
} from "../src/index.ts"

const tools = [NativeTool.make({ name: "a", parameters: Schema.Struct({}), run: () => "a" })]

const callsWith = (policy: Layer.Layer<Policy, ConfigError>, hideDenied = true) =>
  Effect.provide(
    Effect.service(ToolCalls),
    Interlock.layer({ policy, hideDenied, policyTimeout: 1_000 }).pipe(Layer.provide(ToolTransport.fromTools(tools)))
  )

const read = (uri: string): PolicyOperation => ({ _tag: "ReadResource", serverId: "srv", uri })
const prompt = (name: string): PolicyOperation => ({ _tag: "GetPrompt", serverId: "srv", name, args: {} })
const ENTRIES = ["file:///ok", "file:///secret/key", "file:///ok/too"]

const denySecrets: PolicyShape = {
  decide: () => Effect.succeed(Policy.allow()),
  decideOperation: (operation) =>
    Effect.succeed(
      operation._tag === "ReadResource" && operation.uri.includes("secret")
        ? Policy.deny("secret", "s")
        : Policy.allow()
    )
}

describe("one policy over every operation (core)", () => {
  it.effect("listings hide what the policy denies with hideDenied, and show everything without it", () =>
    Effect.gen(function*() {
      const hiding = yield* callsWith(Layer.succeed(Policy, denySecrets))
      assert.deepStrictEqual(yield* hiding.visibleOperations(ENTRIES, read), ["file:///ok", "file:///ok/too"])
      const showing = yield* callsWith(Layer.succeed(Policy, denySecrets), false)
      assert.deepStrictEqual(yield* showing.visibleOperations(ENTRIES, read), ENTRIES)
    }))

  it.effect("decideRead and decidePrompt decide as the read and get would, without the transport", () =>
    Effect.gen(function*() {
      const calls = yield* callsWith(Layer.succeed(Policy, denySecrets))
      const denied = yield* Effect.flip(calls.decideRead("srv", "file:///secret/key"))
      assert.strictEqual((denied as Denied).reason._tag, "PolicyDenied")
      // The native transport serves no resources: a decision that reached it would fail otherwise.
      yield* calls.decideRead("srv", "file:///ok")
      yield* calls.decidePrompt("srv", "greet", { who: "x" })
    }))

  it.effect("a policy that dies hides every entry and refuses the decisions", () =>
    Effect.gen(function*() {
      const dying: PolicyShape = {
        decide: () => Effect.succeed(Policy.allow()),
        decideOperation: () => Effect.die(new Error("broken")),
        visibleOperation: () => Effect.die(new Error("broken"))
      }
      const calls = yield* callsWith(Layer.succeed(Policy, dying))
      assert.deepStrictEqual(yield* calls.visibleOperations(ENTRIES, read), [])
      assert.strictEqual((yield* Effect.flip(calls.decideRead("srv", "file:///ok")))._tag, "Denied")
      assert.strictEqual((yield* Effect.flip(calls.decidePrompt("srv", "greet", {})))._tag, "Denied")
    }))

  it.effect("a policy that hangs hides the entry and refuses the decision at the policy deadline", () =>
    Effect.scoped(Effect.gen(function*() {
      const hanging: PolicyShape = {
        decide: () => Effect.succeed(Policy.allow()),
        decideOperation: () => Effect.never,
        visibleOperation: () => Effect.never
      }
      const calls = yield* callsWith(Layer.succeed(Policy, hanging))
      const listing = yield* Effect.forkChild(calls.visibleOperations(ENTRIES.slice(0, 1), read))
      const decision = yield* Effect.forkChild(Effect.exit(calls.decideRead("srv", "file:///ok")))
      yield* TestClock.adjust(2_000)
      assert.deepStrictEqual(yield* Fiber.join(listing), [])
      const exit = yield* Fiber.join(decision)
      assert.isTrue(Exit.isFailure(exit))
    })))

  it.effect("JSON rules with `on` decide resources and prompts; tool rules do not touch them", () =>
    Effect.gen(function*() {
      const config: RulesConfig = {
        default: "deny",
        rules: [
          { on: "resources", match: { server: "srv", regex: "^file:///secret/" }, decision: "deny", id: "no-secret" },
          { on: "prompts", match: "srv/Hidden-Prompt", decision: "deny", id: "no-hidden" },
          { match: "srv/a", decision: "allow" }
        ]
      }
      const calls = yield* callsWith(Policy.rules(config))
      assert.deepStrictEqual(yield* calls.visibleOperations(ENTRIES, read), ["file:///ok", "file:///ok/too"])
      // Loose names: the rule on Hidden-Prompt covers hidden_prompt.
      assert.deepStrictEqual(
        yield* calls.visibleOperations(["hidden_prompt", "shown"], prompt),
        ["shown"]
      )
      const denied = yield* Effect.flip(calls.decidePrompt("srv", "hidden_prompt", {}))
      assert.deepStrictEqual((denied as Denied).reason, {
        _tag: "PolicyDenied",
        rule: "no-hidden",
        message: "denied by policy"
      })
      // The tools' default (deny) is not the resources': no resource rule applies, so the read is allowed.
      yield* calls.decideRead("srv", "file:///ok")
      const tool = yield* Effect.flip(calls.callTool({ serverId: "srv", name: "b" }))
      assert.strictEqual(tool._tag, "Denied")
    }))

  it.effect("a rule on resources or prompts with a condition on tool calls is a config error", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(callsWith(Policy.rules({
        rules: [{ on: "resources", match: "*", decision: "deny", when: () => true }]
      })))
      assert.instanceOf(error, ConfigError)
      assert.include(error.message, "policy.rules[0]")
      const bad = yield* Effect.flip(callsWith(Policy.rules({
        rules: [{ on: "files" as never, match: "*", decision: "deny" }]
      })))
      assert.include(bad.message, `on must be "tools", "resources" or "prompts"`)
    }))
})
