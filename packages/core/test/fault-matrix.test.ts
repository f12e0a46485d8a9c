/**
 * The fault matrix: every event against every fault. Each cell asserts the outcome (the call fails
 * closed, the result is withheld, the original error is kept, the listing fails), that no hook
 * fiber is left running, and that no promise rejection went unhandled.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Result } from "effect"
import { TestClock } from "effect/testing"
import {
  type FailureKind,
  HOOK_EVENTS,
  type HookEvent,
  HookFailed,
  type HooksConfig,
  ToolCalls,
  TransportError,
  WITHHELD_TEXT
} from "../src/index.ts"
import { trackRejections } from "./capture.ts"
import { client, SECRET } from "./fixtures.ts"

let live = 0
/** Wraps a hook Effect so that the matrix can see whether its fiber outlived the call. */
const tracked = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.suspend(() => {
    live++
    return effect
  }).pipe(Effect.ensuring(Effect.sync(() => live--)))

const faults: ReadonlyArray<readonly [string, FailureKind, () => unknown]> = [
  ["throw", "raise", () => {
    throw new Error(SECRET)
  }],
  ["Promise rejection", "raise", () => Promise.reject(new Error(SECRET))],
  ["Effect.fail", "raise", () => tracked(Effect.fail(new Error(SECRET)))],
  ["Effect.die", "raise", () => tracked(Effect.die(new Error(SECRET)))],
  ["async Effect.fail", "raise", () => tracked(Effect.flatMap(Effect.yieldNow, () => Effect.fail(SECRET)))],
  ["self-interrupt", "exit", () => tracked(Effect.interrupt)],
  ["timeout (Effect.never)", "timeout", () => tracked(Effect.never)],
  ["timeout (sleep past the deadline)", "timeout", () => tracked(Effect.sleep("1 hour"))],
  ["a Promise that never resolves", "timeout", () => new Promise(() => {})],
  ["junk: a number", "bad_return", () => 42],
  ["junk: undefined", "bad_return", () => undefined],
  ["junk: an unknown tag", "bad_return", () => ({ _tag: "Bogus" })],
  ["junk: a Promise of junk", "bad_return", () => Promise.resolve([SECRET])],
  ["junk: an Effect of junk", "bad_return", () => tracked(Effect.succeed({ _tag: "Deny" }))],
  ["junk: a throwing getter", "bad_return", () => ({
    get _tag(): string {
      throw new Error(SECRET)
    }
  })],
  ["allow-like: { _tag: Allow }", "bad_return", () => ({ _tag: "Allow" })],
  ["allow-like: { decision: allow }", "bad_return", () => ({ decision: "allow" })],
  ["allow-like: true", "bad_return", () => true],
  ["allow-like: an Effect of Allow", "bad_return", () => tracked(Effect.succeed({ _tag: "Allow", reason: "ok" }))]
]

type Outcome = { readonly kind: FailureKind | undefined; readonly check: () => void }

const settle = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

/** Runs the operation that fires `event`, and returns how it ended. */
const fire = (event: HookEvent, run: () => unknown) => {
  const hooks = { [event]: [{ match: "*", id: "faulty", run }] } as HooksConfig
  const { layer, log } = client(hooks)
  return Effect.gen(function*() {
    const calls = yield* ToolCalls
    const operation: Effect.Effect<Outcome, unknown> = (() => {
      switch (event) {
        case "preToolCall":
          return Effect.map(
            Effect.flip(calls.callTool({ serverId: "srv", name: "echo", args: { k: SECRET } })),
            (error) => ({
              kind: (error as HookFailed).kind,
              check: () => {
                assert.instanceOf(error, HookFailed)
                assert.strictEqual(log.calls.length, 0, "a failing pre-hook must not let the call through")
              }
            })
          )
        case "postToolCall":
          return Effect.map(calls.callTool({ serverId: "srv", name: "secret" }), (result) => ({
            kind: result.receipt?.hooks[0].failure,
            check: () => {
              assert.strictEqual(result.text, WITHHELD_TEXT)
              assert.isTrue(result.isError)
              assert.notInclude(JSON.stringify(result), SECRET)
            }
          }))
        case "toolCallFailed":
          return Effect.map(Effect.flip(calls.callTool({ serverId: "srv", name: "fail" })), (error) => ({
            kind: error.receipt?.hooks[0].failure,
            check: () => assert.instanceOf(error, TransportError, "a failing failure hook returns the original error")
          }))
        case "toolsListed":
          return Effect.map(Effect.flip(calls.listTools()), (error) => ({
            kind: (error as HookFailed).kind,
            check: () => assert.instanceOf(error, HookFailed, "a failing listing hook fails the listing")
          }))
        case "resourceRead":
          return Effect.map(Effect.flip(calls.readResource("srv", "file:///x")), (error) => ({
            kind: (error as HookFailed).kind,
            check: () => {
              assert.instanceOf(error, HookFailed)
              assert.strictEqual(log.reads.length, 0)
            }
          }))
        case "promptGet":
          return Effect.map(Effect.flip(calls.getPrompt("srv", "p", { k: SECRET })), (error) => ({
            kind: (error as HookFailed).kind,
            check: () => {
              assert.instanceOf(error, HookFailed)
              assert.strictEqual(log.prompts.length, 0)
            }
          }))
      }
    })()
    const outcome = yield* operation
    // Checked while the client (and its FiberSet) is still open: closing it would hide a leaked fiber.
    yield* settle
    return { ...outcome, liveWhileOpen: live }
  }).pipe(Effect.provide(layer))
}

const rejections = trackRejections()
afterAll(() => rejections.stop())

for (const event of HOOK_EVENTS) {
  describe(`fault matrix: ${event}`, () => {
    for (const [name, kind, run] of faults) {
      it.effect(`${name} -> ${kind}`, () =>
        Effect.gen(function*() {
          live = 0
          const fiber = yield* Effect.forkChild(fire(event, run))
          yield* settle
          yield* TestClock.adjust("5 seconds")
          const exit = yield* Effect.result(Fiber.join(fiber))
          assert.isTrue(Result.isSuccess(exit), "the operation must end, with the fault contained")
          if (!Result.isSuccess(exit)) return
          exit.success.check()
          assert.strictEqual(exit.success.kind, kind)
          assert.strictEqual(exit.success.liveWhileOpen, 0, "no hook fiber may be left running after the call")
          yield* settle
          assert.strictEqual(live, 0, "no hook fiber may outlive the client")
          assert.deepStrictEqual(rejections.seen, [], "no unhandled rejection")
        }))
    }
  })
}
