/**
 * The seed's rules (conduit_mcp hooks) through the whole pipeline, one test each: failures, deadlines, order,
 * rewrites, deny, halt and withheld. pipeline-chains.test.ts has the rest.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Ref } from "effect"
import { TestClock } from "effect/testing"
import { Denied, HookFailed, Policy, Verdict, WITHHELD_TEXT } from "../src/index.ts"
import { call, client, errorOf } from "./fixtures.ts"

const cont = () => Verdict.continue

describe("seed rules", () => {
  it.effect("HK-1: a pre-hook that raises fails the call with HookFailed and sends nothing", () => {
    const { layer, log } = client({
      preToolCall: [{
        match: "*",
        id: "boom",
        run: () => {
          throw new Error("boom")
        }
      }]
    })
    return Effect.gen(function*() {
      const error = errorOf(yield* call("echo"))
      assert.instanceOf(error, HookFailed)
      assert.deepInclude(error, { hookId: "boom", event: "preToolCall", kind: "raise" })
      assert.strictEqual(log.calls.length, 0)
      assert.strictEqual(error.receipt?.sent, false)
      assert.strictEqual(error.receipt?.outcome, "failed")
    }).pipe(Effect.provide(layer))
  })

  it.effect("HK-2: a hung hook runs under its own deadline (TestClock) and its fiber is interrupted", () =>
    Effect.gen(function*() {
      const interrupted = yield* Ref.make(false)
      const { layer, log } = client({
        preToolCall: [{
          match: "*",
          id: "slow",
          timeout: 1000,
          run: () => Effect.never.pipe(Effect.onInterrupt(() => Ref.set(interrupted, true)))
        }]
      })
      const fiber = yield* Effect.forkChild(Effect.provide(call("echo"), layer))
      yield* TestClock.adjust(999)
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust(1)
      const error = errorOf(yield* Fiber.join(fiber))
      assert.deepInclude(error, { hookId: "slow", kind: "timeout" })
      assert.isTrue(yield* Ref.get(interrupted))
      assert.strictEqual(log.calls.length, 0)
    }))

  it.effect("HK-2: the default deadline is the client's hookTimeout (5 s)", () =>
    Effect.gen(function*() {
      const { layer } = client({ preToolCall: [{ match: "*", id: "never", run: () => new Promise(() => {}) }] })
      const fiber = yield* Effect.forkChild(Effect.provide(call("echo"), layer))
      yield* TestClock.adjust(4_999)
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust(1)
      assert.deepInclude(errorOf(yield* Fiber.join(fiber)), { hookId: "never", kind: "timeout" })
    }))

  it.effect("HK-4: hooks run in onion order through the pipeline, each seeing the previous rewrite", () => {
    const seen: Array<string> = []
    const tag = (id: string) => (call: { args: { trail?: string } }) => {
      seen.push(id)
      return Verdict.rewrite({ args: { trail: `${call.args.trail ?? ""}>${id}` } })
    }
    const post = (id: string) => () => {
      seen.push(id)
      return Verdict.continue
    }
    const { layer, log } = client({
      preToolCall: [
        { match: "srv/echo", id: "tool", run: tag("tool") },
        { match: "srv/*", id: "server", run: tag("server") },
        { match: "*", id: "global", run: tag("global") }
      ],
      postToolCall: [
        { match: "srv/echo", id: "post-tool", run: post("post-tool") },
        { match: "*", id: "post-global", run: post("post-global") }
      ]
    })
    return Effect.gen(function*() {
      const result = yield* call("echo")
      assert.strictEqual(result._tag, "Success")
      assert.deepStrictEqual(seen, ["global", "server", "tool", "post-tool", "post-global"])
      assert.deepStrictEqual(log.calls[0].args, { trail: ">global>server>tool" })
    }).pipe(Effect.provide(layer))
  })

  it.effect("HK-5: no hook can allow; an allow-like return is a bad_return and the policy still decides", () =>
    Effect.gen(function*() {
      for (
        const allowish of [{ _tag: "Allow" }, { decision: "allow" }, "allow", true, { _tag: "Continue", allow: true }]
      ) {
        const { layer, log } = client({ preToolCall: [{ match: "*", id: "allow", run: () => allowish as never }] })
        const error = errorOf(yield* Effect.provide(call("echo"), layer))
        assert.deepInclude(error, { hookId: "allow", kind: "bad_return" })
        assert.strictEqual(log.calls.length, 0)
      }
      const denied = client({ preToolCall: [{ match: "*", run: cont }] }, { policy: Policy.denyAll })
      const error = errorOf(yield* Effect.provide(call("echo"), denied.layer))
      assert.instanceOf(error, Denied)
      assert.strictEqual((error as Denied).reason._tag, "PolicyDenied")
      assert.strictEqual(denied.log.calls.length, 0)
    }))

  it.effect("rewrite limits: args and meta may change and the digest follows; serverId, name or callId may not", () =>
    Effect.gen(function*() {
      const digests: Array<string> = []
      const { layer, log } = client({
        preToolCall: [
          {
            match: "*",
            id: "r1",
            run: (call) => {
              digests.push(call.digest)
              return Verdict.rewrite({ args: { n: 2 }, meta: { tagged: true } })
            }
          },
          {
            match: "*",
            id: "r2",
            run: (call) => {
              digests.push(call.digest)
              assert.deepStrictEqual(call.meta, { tagged: true })
              return Verdict.continue
            }
          }
        ]
      })
      const ok = yield* Effect.provide(call("echo", { n: 1 }), layer)
      assert.strictEqual(ok._tag, "Success")
      assert.notStrictEqual(digests[0], digests[1])
      assert.deepStrictEqual(log.calls[0].args, { n: 2 })
      if (ok._tag === "Success") assert.strictEqual(ok.success.receipt?.digest, digests[1])
      for (const change of [{ serverId: "other" }, { name: "other" }, { callId: "other" }]) {
        const bad = client({
          preToolCall: [{ match: "*", id: "sneaky", run: () => Verdict.rewrite({ args: {}, ...change }) }]
        })
        assert.deepInclude(errorOf(yield* Effect.provide(call("echo"), bad.layer)), {
          hookId: "sneaky",
          kind: "bad_return"
        })
        assert.strictEqual(bad.log.calls.length, 0)
      }
      const junkArgs = client({
        preToolCall: [{ match: "*", id: "junk", run: () => Verdict.rewrite({ args: { f: (() => 1) as never } }) }]
      })
      assert.deepInclude(errorOf(yield* Effect.provide(call("echo"), junkArgs.layer)), { kind: "bad_return" })
    }))

  it.effect("deny: a pre-hook's Deny fails the call with Denied naming the hook, and nothing is sent", () => {
    const { layer, log } = client({
      preToolCall: [{ match: "srv/echo", id: "gate", run: () => Verdict.deny("not today") }]
    })
    return Effect.gen(function*() {
      const error = errorOf(yield* call("echo"))
      assert.instanceOf(error, Denied)
      assert.deepStrictEqual((error as Denied).reason, { _tag: "HookDenied", hookId: "gate", message: "not today" })
      assert.strictEqual(log.calls.length, 0)
      assert.strictEqual(error.receipt?.outcome, "denied")
    }).pipe(Effect.provide(layer))
  })

  it.effect("halt: a synthetic result, no policy, no request; post-hooks still run", () => {
    const posts: Array<string> = []
    const { layer, log } = client({
      preToolCall: [{
        match: "*",
        id: "cache",
        run: () => Verdict.halt({ content: [{ type: "text", text: "cached" }] })
      }],
      postToolCall: [{
        match: "*",
        id: "post",
        run: (_call, result) => {
          posts.push(result.text)
          return Verdict.continue
        }
      }]
    }, { policy: Policy.denyAll })
    return Effect.gen(function*() {
      const result = yield* call("echo")
      assert.strictEqual(result._tag, "Success")
      if (result._tag !== "Success") return
      assert.strictEqual(result.success.text, "cached")
      assert.deepStrictEqual(posts, ["cached"])
      assert.strictEqual(log.calls.length, 0)
      assert.strictEqual(result.success.receipt?.policy, undefined)
      assert.strictEqual(result.success.receipt?.outcome, "halted")
    }).pipe(Effect.provide(layer))
  })

  it.effect("withheld: a failing post-hook withholds the result (isError results too); onError ignore skips it", () =>
    Effect.gen(function*() {
      for (const tool of ["secret", "error"]) {
        const { layer } = client({
          postToolCall: [{
            match: "*",
            id: "redact",
            run: () => {
              throw new Error("x")
            }
          }]
        })
        const result = yield* Effect.provide(call(tool), layer)
        assert.strictEqual(result._tag, "Success")
        if (result._tag !== "Success") return
        assert.strictEqual(result.success.text, WITHHELD_TEXT)
        assert.isTrue(result.success.isError)
        assert.strictEqual(result.success.receipt?.outcome, "withheld")
      }
      const ignored = client({
        postToolCall: [
          { match: "*", id: "flaky", onError: "ignore", run: () => Promise.reject(new Error("x")) },
          {
            match: "*",
            id: "wrap",
            run: (_c, r) => Verdict.replace({ content: [{ type: "text", text: `[${r.text}]` }] })
          }
        ]
      })
      const result = yield* Effect.provide(call("echo", { a: 1 }), ignored.layer)
      assert.strictEqual(result._tag === "Success" && result.success.text, `[{"a":1}]`)
      const runs = result._tag === "Success" ? result.success.receipt?.hooks ?? [] : []
      assert.deepStrictEqual(runs.map((r) => [r.id, r.status, r.ignored]), [["wrap", "replace", false], [
        "flaky",
        "failed",
        true
      ]])
    }))
})
