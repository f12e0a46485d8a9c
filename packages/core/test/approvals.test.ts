import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import {
  type ApprovalAnswer,
  type ApprovalRequest,
  Approvals,
  type Denied,
  Interlock,
  Policy,
  ToolCalls
} from "../src/index.ts"
import { recordingTransport } from "./fixtures.ts"

const askAll = Policy.rules({ rules: [{ id: "ask", match: "srv/*", decision: "ask", reason: "writes need a human" }] })

const setup = (
  approver: (
    request: ApprovalRequest
  ) => ApprovalAnswer | Promise<ApprovalAnswer> | Effect.Effect<ApprovalAnswer, unknown>,
  timeout?: number
) => {
  const transport = recordingTransport()
  const asked: Array<string> = []
  const layer = Interlock.layer({
    policy: askAll,
    approvals: Approvals.layer({
      approver: (request) => {
        asked.push(`${request.call.name}:${request.reason}:${request.rule}`)
        return approver(request)
      },
      timeout
    })
  }).pipe(Layer.provide(transport.layer))
  return { layer, asked, log: transport.log }
}

const callEcho = (args: Record<string, any>, principal?: string) =>
  Effect.flatMap(
    ToolCalls,
    (calls) =>
      Effect.result(
        calls.callTool(
          { serverId: "srv", name: "echo", args },
          principal === undefined ? undefined : { principal: { id: principal } as never }
        )
      )
  )

describe("approvals", () => {
  it.effect("an approved Ask sends the call; a denied one does not; both are on the receipt", () =>
    Effect.gen(function*() {
      const { layer, asked, log } = setup((request) => ({
        decision: request.call.args.ok === true ? "allow" : "deny",
        reason: "no"
      }))
      yield* Effect.gen(function*() {
        const ok = yield* callEcho({ ok: true })
        assert.strictEqual(ok._tag, "Success")
        assert.deepStrictEqual(ok._tag === "Success" && ok.success.receipt?.approval, {
          decision: "allow",
          source: "approver"
        })
        const no = yield* callEcho({ ok: false })
        assert.strictEqual(no._tag, "Failure")
        const error = no._tag === "Failure" ? (no.failure as Denied) : undefined
        assert.deepStrictEqual(error?.reason, { _tag: "ApprovalDenied", message: "no" })
        assert.deepStrictEqual(error?.receipt?.approval, { decision: "deny", source: "approver" })
        assert.deepStrictEqual(asked, ["echo:writes need a human:ask", "echo:writes need a human:ask"])
        assert.strictEqual(log.calls.length, 1)
      }).pipe(Effect.provide(layer))
    }))

  it.effect("no answer before the deadline denies (TestClock)", () =>
    Effect.gen(function*() {
      const { layer, log } = setup(() => Effect.never, 30_000)
      const fiber = yield* Effect.forkChild(Effect.provide(callEcho({}), layer))
      yield* TestClock.adjust("29 seconds")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 second")
      const result = yield* Fiber.join(fiber)
      const error = result._tag === "Failure" ? (result.failure as Denied) : undefined
      assert.deepStrictEqual(error?.reason, { _tag: "ApprovalDenied", message: "no approval within 30000 ms" })
      assert.deepStrictEqual(error?.receipt?.approval, { decision: "deny", source: "timeout" })
      assert.strictEqual(log.calls.length, 0)
    }))

  it.effect("an approver that fails or answers junk denies", () =>
    Effect.gen(function*() {
      for (
        const approver of [() => Effect.fail("x"), () =>
          Promise.reject(new Error("x")), () =>
          ({ decision: "yes" }) as never, () => {
          throw new Error("x")
        }]
      ) {
        const { layer, log } = setup(approver as never)
        const result = yield* Effect.provide(callEcho({}), layer)
        assert.strictEqual(result._tag === "Failure" && (result.failure as Denied).reason._tag, "ApprovalDenied")
        assert.strictEqual(log.calls.length, 0)
      }
    }))

  it.effect("remember once asks every time; remember tool asks once per principal and tool", () =>
    Effect.gen(function*() {
      const once = setup(() => ({ decision: "allow", remember: "once" }))
      yield* Effect.provide(Effect.all([callEcho({ n: 1 }), callEcho({ n: 1 })]), once.layer)
      assert.strictEqual(once.asked.length, 2)
      const tool = setup(() => ({ decision: "allow", remember: "tool" }))
      yield* Effect.provide(
        Effect.all([callEcho({ n: 1 }, "alice"), callEcho({ n: 2 }, "alice"), callEcho({ n: 3 }, "bob")]),
        tool.layer
      )
      assert.strictEqual(tool.asked.length, 2)
      assert.strictEqual(tool.log.calls.length, 3)
    }))

  it.effect("a grant is bound to the call's digest and used once; an edited call needs a new approval", () =>
    Effect.gen(function*() {
      const transport = recordingTransport()
      const layer = Interlock.layer({ policy: askAll }).pipe(
        Layer.provideMerge(transport.layer),
        Layer.provideMerge(Approvals.none)
      )
      yield* Effect.gen(function*() {
        const approvals = yield* Approvals
        const first = yield* callEcho({ path: "a" })
        const denied = first._tag === "Failure" ? (first.failure as Denied) : undefined
        assert.deepStrictEqual(denied?.receipt?.approval, { decision: "deny", source: "none" })
        yield* approvals.grant(denied!.receipt!.digest!)
        const edited = yield* callEcho({ path: "b" })
        assert.strictEqual(edited._tag, "Failure")
        const approved = yield* callEcho({ path: "a" })
        assert.strictEqual(approved._tag, "Success")
        assert.deepStrictEqual(approved._tag === "Success" && approved.success.receipt?.approval, {
          decision: "allow",
          source: "remembered"
        })
        const again = yield* callEcho({ path: "a" })
        assert.strictEqual(again._tag, "Failure")
        assert.deepStrictEqual(transport.log.calls.map((c) => c.args), [{ path: "a" }])
      }).pipe(Effect.provide(layer))
    }))
})
