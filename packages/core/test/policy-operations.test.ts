/**
 * A policy may also decide resource reads and prompt gets (`decideOperation`) and filter listings
 * as an Effect (`visibleTools`); both are optional, and a policy without them (JSON rules) leaves
 * reads, gets and listings as they were. Fail closed: an answer that dies denies the read
 * or get, and hides the listing's tools.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import {
  type Denied,
  Interlock,
  NativeTool,
  Policy,
  type PolicyDecision,
  type PolicyShape,
  ToolCalls,
  ToolTransport
} from "../src/index.ts"

const tools = ["a", "b", "c"].map((name) => NativeTool.make({ name, parameters: Schema.Struct({}), run: () => name }))

const withPolicy = (shape: PolicyShape, hideDenied = false) =>
  Interlock.layer({ policy: Layer.succeed(Policy, shape), hideDenied }).pipe(
    Layer.provide(ToolTransport.fromTools(tools))
  )

const reasonOf = (error: unknown) => (error as Denied).reason

describe("policy over reads, gets and listings", () => {
  it.effect("decideOperation sees the final URI and prompt arguments; Deny and Ask refuse, Allow passes on", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const layer = withPolicy({
        decide: () => Effect.succeed(Policy.allow()),
        decideOperation: (operation) => {
          seen.push(
            operation._tag === "ReadResource" ? operation.uri : `${operation.name}:${JSON.stringify(operation.args)}`
          )
          if (operation._tag === "ReadResource") {
            return Effect.succeed(operation.uri.includes("secret") ? Policy.deny("no secrets", "r1") : Policy.allow())
          }
          return Effect.succeed(Policy.ask("a human", "p1"))
        }
      })
      const calls = yield* Effect.provide(Effect.service(ToolCalls), layer)
      const denied = yield* Effect.flip(calls.readResource("local", "file:///secret"))
      assert.deepStrictEqual(reasonOf(denied), { _tag: "PolicyDenied", rule: "r1", message: "no secrets" })
      // Allowed: the native transport has no resources, so its own error comes back.
      const passed = yield* Effect.flip(calls.readResource("local", "file:///public"))
      assert.notStrictEqual(passed._tag, "Denied")
      const asked = yield* Effect.flip(calls.getPrompt("local", "greet", { who: "x" }))
      assert.deepStrictEqual(reasonOf(asked), {
        _tag: "PolicyDenied",
        rule: "p1",
        message: "approval is not available for this operation (a human)"
      })
      assert.deepStrictEqual(seen, ["file:///secret", "file:///public", `greet:{"who":"x"}`])
    }))

  it.effect("a decideOperation that dies or throws denies", () =>
    Effect.gen(function*() {
      const throwing = Effect.sync((): PolicyDecision => {
        throw new Error("thrown")
      })
      for (const answer of [Effect.die("boom"), throwing]) {
        const calls = yield* Effect.provide(
          Effect.service(ToolCalls),
          withPolicy({ decide: () => Effect.succeed(Policy.allow()), decideOperation: () => answer })
        )
        const error = yield* Effect.flip(calls.readResource("local", "u"))
        assert.deepStrictEqual(reasonOf(error), {
          _tag: "PolicyDenied",
          rule: undefined,
          message: "the policy failed to decide"
        })
      }
    }))

  it.effect(
    "with hideDenied, visibleTools filters the listing (after the tools filter); without hideDenied it " +
      "is not asked",
    () =>
      Effect.gen(function*() {
        let asked = 0
        const shape: PolicyShape = {
          decide: () => Effect.succeed(Policy.allow()),
          visible: () => false,
          visibleTools: (listed) => Effect.sync(() => (asked++, listed.filter((tool) => tool.name !== "b")))
        }
        const hidden = yield* Effect.provide(
          Effect.flatMap(Effect.service(ToolCalls), (c) => c.listTools()),
          withPolicy(shape, true)
        )
        assert.deepStrictEqual(hidden.map((tool) => tool.name), ["a", "c"])
        const all = yield* Effect.provide(
          Effect.flatMap(Effect.service(ToolCalls), (c) => c.listTools()),
          withPolicy(shape, false)
        )
        assert.deepStrictEqual(all.map((tool) => tool.name), ["a", "b", "c"])
        assert.strictEqual(asked, 1)
        const failing = yield* Effect.provide(
          Effect.flatMap(Effect.service(ToolCalls), (c) => c.listTools()),
          withPolicy({ ...shape, visibleTools: () => Effect.die("boom") }, true)
        )
        assert.deepStrictEqual(failing, [])
      })
  )
})
