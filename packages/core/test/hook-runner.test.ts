/**
 * The one hook runner (`HookRunner.invoke`), which core, agent and claude all run their hooks
 * through: how each answer form settles, each failure kind, the deadline on the TestClock in both
 * fiber modes, a hook that ignores interruption, and that the three forms of one answer agree.
 */
import { assert, describe, it } from "@effect/vitest"
import { HookRunner } from "@interlock/core"
import { Context, Effect, Fiber, Schema } from "effect"
import { TestClock } from "effect/testing"
import * as Supervisor from "../src/internal/Supervisor.ts"

/** The test's hooks: the state is the hook function itself, the "hook" is its deadline in ms; strings are verdicts. */
type Run = () => unknown

const invocation = (
  fibers: HookRunner.Fibers,
  extra: Partial<HookRunner.Invocation<Run, number, string>> = {}
): HookRunner.Invocation<Run, number, string> => ({
  call: (run) => run(),
  decode: (value) => (typeof value === "string" ? value : HookRunner.BAD_RETURN),
  deadlineMs: (millis) => millis,
  fibers,
  ...extra
})

/** What a test compares: the verdict, or the failure kind (and whether the fiber was detached). */
const view = (settled: HookRunner.Settled<string>) =>
  settled.ok
    ? { verdict: settled.verdict }
    : settled.detached === true
    ? { kind: settled.kind, detached: true }
    : { kind: settled.kind }

const settle = (answer: HookRunner.Settled<string> | Effect.Effect<HookRunner.Settled<string>>) =>
  Effect.map(HookRunner.isSettled(answer) ? Effect.succeed(answer) : answer, view)

const run = (
  fibers: HookRunner.Fibers,
  hook: Run,
  millis = 1_000,
  extra?: Partial<HookRunner.Invocation<Run, number, string>>
) => settle(HookRunner.invoke(invocation(fibers, extra), hook, millis))

/** Both fiber modes: under a client's supervisor (core), and beside the caller with the agent's grace. */
const modes = Effect.map(
  Supervisor.make(1_000),
  (supervisor) => [HookRunner.supervised(supervisor), HookRunner.beside(100), HookRunner.beside()]
)

class Greeting extends Context.Service<Greeting, string>()("test/Greeting") {}

describe("HookRunner.invoke", () => {
  it.effect("a plain value settles at once, without an Effect; so do a throw, a bad value and the pass answer", () =>
    Effect.gen(function*() {
      const fibers = HookRunner.beside(100)
      const once = (hook: Run, extra?: Partial<HookRunner.Invocation<Run, number, string>>) => {
        const answer = HookRunner.invoke(invocation(fibers, extra), hook, 1_000)
        assert.isTrue(HookRunner.isSettled(answer), "answered with an Effect")
        return view(answer as HookRunner.Settled<string>)
      }
      assert.deepStrictEqual(once(() => "ok"), { verdict: "ok" })
      assert.deepStrictEqual(once(() => 42), { kind: "bad_return" })
      assert.deepStrictEqual(
        once(() => {
          throw new Error("secret")
        }),
        { kind: "raise" }
      )
      const token = Object.freeze({ _tag: "Continue" })
      const pass = HookRunner.passing(token, "continue")
      const answer = HookRunner.invoke(
        invocation(fibers, { pass, decode: () => HookRunner.BAD_RETURN }),
        () => token,
        1_000
      )
      assert.strictEqual(answer, pass.settled, "the pass answer is settled without decoding or allocating")
      yield* Effect.void
    }))

  it.effect("a Promise: its value is decoded, a rejection is a raise, and a `then` that throws is a raise", () =>
    Effect.gen(function*() {
      const fibers = HookRunner.beside(100)
      assert.deepStrictEqual(yield* run(fibers, () => Promise.resolve("ok")), { verdict: "ok" })
      assert.deepStrictEqual(yield* run(fibers, () => Promise.resolve(7)), { kind: "bad_return" })
      assert.deepStrictEqual(yield* run(fibers, () => Promise.reject(new Error("secret"))), { kind: "raise" })
      assert.deepStrictEqual(
        yield* run(fibers, () => ({ then: (resolve: (value: unknown) => void) => resolve("thenable") })),
        { verdict: "thenable" }
      )
      const trap = Object.defineProperty({}, "then", {
        get: () => {
          throw new Error("secret")
        }
      })
      const answer = HookRunner.invoke(invocation(fibers), () => trap, 1_000)
      assert.isTrue(HookRunner.isSettled(answer))
      assert.deepStrictEqual(view(answer as HookRunner.Settled<string>), { kind: "raise" })
      assert.deepStrictEqual(
        yield* run(fibers, () => ({
          then: () => {
            throw new Error("secret")
          }
        })),
        { kind: "raise" }
      )
    }))

  it.effect(
    "an Effect, in every fiber mode: success is decoded; Effect.fail and a defect are raises; " +
      "self-interruption is an exit",
    () =>
      Effect.gen(function*() {
        for (const fibers of yield* modes) {
          assert.deepStrictEqual(yield* run(fibers, () => Effect.succeed("ok")), { verdict: "ok" }, fibers._tag)
          assert.deepStrictEqual(
            yield* run(fibers, () => Effect.as(Effect.yieldNow, "later")),
            { verdict: "later" },
            fibers._tag
          )
          assert.deepStrictEqual(yield* run(fibers, () => Effect.succeed(null)), { kind: "bad_return" }, fibers._tag)
          assert.deepStrictEqual(yield* run(fibers, () => Effect.fail("secret")), { kind: "raise" }, fibers._tag)
          assert.deepStrictEqual(
            yield* run(fibers, () => Effect.die(new Error("secret"))),
            { kind: "raise" },
            fibers._tag
          )
          assert.deepStrictEqual(yield* run(fibers, () => Effect.andThen(Effect.yieldNow, Effect.die("secret"))), {
            kind: "raise"
          }, fibers._tag)
          assert.deepStrictEqual(yield* run(fibers, () => Effect.interrupt), { kind: "exit" }, fibers._tag)
        }
      })
  )

  it.effect("`raised` reads a typed failure as an answer; one it does not know stays a raise", () =>
    Effect.gen(function*() {
      const raised = (error: unknown) => (error === "known" ? "answered by failing" : undefined)
      for (const fibers of yield* modes) {
        assert.deepStrictEqual(yield* run(fibers, () => Effect.fail("known"), 1_000, { raised }), {
          verdict: "answered by failing"
        })
        assert.deepStrictEqual(yield* run(fibers, () => Effect.fail("other"), 1_000, { raised }), { kind: "raise" })
        assert.deepStrictEqual(
          yield* run(fibers, () => Effect.die("known"), 1_000, { raised }),
          { kind: "raise" },
          "a defect is never an answer"
        )
      }
    }))

  it.effect("`context` provides services to an Effect", () =>
    Effect.gen(function*() {
      const context = Context.make(Greeting, "hello") as Context.Context<never>
      for (const fibers of yield* modes) {
        assert.deepStrictEqual(yield* run(fibers, () => Effect.service(Greeting), 1_000, { context }), {
          verdict: "hello"
        })
      }
    }))

  it.effect("the deadline is the Clock's: a hook that never answers times out at it, not before (TestClock)", () =>
    Effect.gen(function*() {
      for (const fibers of yield* modes) {
        for (const hook of [() => Effect.never, () => new Promise(() => {})]) {
          const fiber = yield* Effect.forkChild(run(fibers, hook, 2_000))
          yield* TestClock.adjust(1_999)
          assert.isUndefined(fiber.pollUnsafe(), `${fibers._tag}: answered before the deadline`)
          yield* TestClock.adjust(1)
          assert.deepStrictEqual(yield* Fiber.join(fiber), { kind: "timeout" }, fibers._tag)
        }
      }
    }))

  it.effect(
    "a hook that ignores interruption: supervised, detached at the deadline; beside, answered after the " +
      "grace or when it ends",
    () =>
      Effect.gen(function*() {
        const [supervisedFibers, graced, waited] = yield* modes
        const stuck = () => Effect.uninterruptible(Effect.as(Effect.sleep(10_000), "late"))
        const supervisedRun = yield* Effect.forkChild(run(supervisedFibers, stuck, 2_000))
        yield* TestClock.adjust(2_000)
        assert.deepStrictEqual(supervisedRun.pollUnsafe()?._tag, "Success")
        assert.deepStrictEqual(yield* Fiber.join(supervisedRun), { kind: "timeout", detached: true })

        const gracedRun = yield* Effect.forkChild(run(graced, stuck, 2_000))
        yield* TestClock.adjust(2_000)
        assert.isUndefined(gracedRun.pollUnsafe(), "the grace was not given")
        yield* TestClock.adjust(100)
        assert.deepStrictEqual(yield* Fiber.join(gracedRun), { kind: "timeout" })

        const waitedRun = yield* Effect.forkChild(run(waited, stuck, 2_000))
        yield* TestClock.adjust(9_999)
        assert.isUndefined(waitedRun.pollUnsafe(), "did not wait for the hook to end")
        yield* TestClock.adjust(1)
        assert.deepStrictEqual(yield* Fiber.join(waitedRun), { kind: "timeout" })
      })
  )

  it.effect("interrupting the caller interrupts the hook, in every fiber mode", () =>
    Effect.gen(function*() {
      for (const fibers of yield* modes) {
        let interrupted = false
        let started = false
        const hook = () =>
          Effect.sync(() => (started = true)).pipe(
            Effect.andThen(Effect.never),
            Effect.onInterrupt(() => Effect.sync(() => (interrupted = true)))
          )
        const fiber = yield* Effect.forkChild(run(fibers, hook))
        yield* Effect.yieldNow
        assert.isTrue(started)
        yield* Fiber.interrupt(fiber)
        assert.isTrue(interrupted, fibers._tag)
      }
    }))

  it.effect.prop(
    "a value, a Promise of it and an Effect of it settle the same, in every fiber mode",
    [Schema.Union([Schema.String, Schema.Finite, Schema.Boolean, Schema.Null])],
    ([value]) =>
      Effect.gen(function*() {
        for (const fibers of yield* modes) {
          const plain = yield* run(fibers, () => value)
          assert.deepStrictEqual(yield* run(fibers, () => Promise.resolve(value)), plain)
          assert.deepStrictEqual(yield* run(fibers, () => Effect.succeed(value)), plain)
          assert.deepStrictEqual(yield* run(fibers, () => Effect.as(Effect.yieldNow, value)), plain)
          assert.deepStrictEqual(plain, typeof value === "string" ? { verdict: value } : { kind: "bad_return" })
        }
      })
  )
})
