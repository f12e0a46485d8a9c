/**
 * Approvals of 2026-07-28 hosts through GatewayCalls: the first ask ends InputRequired with the
 * approval form and a sealed state, the retry with an explicit yes runs the call, and a retry is
 * refused when the state expired (TestClock), was used, or binds another call, principal or rule;
 * replicas sharing approvals.stateKey finish each other's approvals; 2025 routes are unchanged.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { APPROVAL_INPUT, APPROVAL_PURPOSE } from "../src/calls/ApprovalRound.ts"
import { CurrentElicit } from "../src/calls/Approver.ts"
import { INPUT_REQUIRED } from "../src/calls/CallRows.ts"
import { StateSeal } from "../src/state/StateSeal.ts"
import { UsedStates } from "../src/state/UsedStates.ts"
import { ACCOUNT, APPROVE, ARGS, firstRequest, KEY, keyed, replica, retry, stateOf, who } from "./approval-host.ts"

describe("approvals of 2026-07-28 hosts", () => {
  it.effect(
    "the first ask ends InputRequired: one form elicitation with the rule's reason and redacted arguments, " +
      "and a sealed state",
    () =>
      Effect.gen(function*() {
        const { runs, transfer, store } = yield* replica()
        const end = yield* transfer(firstRequest())
        assert.strictEqual(end._tag, "InputRequired")
        if (end._tag !== "InputRequired") return
        assert.deepStrictEqual(Object.keys(end.input.inputRequests), [APPROVAL_INPUT])
        const request = end.input.inputRequests[APPROVAL_INPUT] as {
          method: string
          params: { mode: string; message: string; requestedSchema: unknown }
        }
        assert.strictEqual(request.method, "elicitation/create")
        assert.strictEqual(request.params.mode, "form")
        assert.include(request.params.message, "moving money needs a person")
        assert.include(request.params.message, "files/transfer by bob")
        assert.include(request.params.message, "[REDACTED]")
        assert.notInclude(request.params.message, ACCOUNT)
        assert.deepStrictEqual(request.params.requestedSchema, {
          type: "object",
          properties: { approve: { type: "boolean", title: "Approve this call" } },
          required: ["approve"]
        })
        // The state is encrypted: it shows neither the principal nor the rule nor the digest.
        for (const hidden of ["bob", "money", ACCOUNT]) assert.notInclude(end.input.requestState, hidden)
        const opened = yield* Effect.gen(function*() {
          return yield* (yield* StateSeal).open(APPROVAL_PURPOSE, end.input.requestState)
        }).pipe(Effect.provide(StateSeal.fromSecret(KEY)))
        assert.deepStrictEqual(Object.keys(opened.payload).sort(), ["digest", "principal", "rule"])
        assert.strictEqual(opened.payload.principal, "bob")
        assert.strictEqual(opened.payload.rule, "money")
        assert.strictEqual(opened.expiresAtMs, 60_000)
        assert.deepStrictEqual(runs, [])
        const [row] = yield* store.query()
        assert.strictEqual(row.outcome, INPUT_REQUIRED)
        assert.strictEqual(row.sent, false)
        assert.strictEqual(row.approval, undefined)
        assert.strictEqual(row.rule, "money")
        assert.strictEqual(row.digest, opened.payload.digest)
      })
  )

  it.effect("the retry with an explicit yes runs the call once; its row names the approval", () =>
    Effect.gen(function*() {
      const { runs, transfer, store } = yield* replica()
      const state = stateOf(yield* transfer(firstRequest()))
      assert.deepStrictEqual(yield* transfer(retry(state, APPROVE)), { _tag: "Ok", text: "sent 10" })
      assert.deepStrictEqual(runs, [ARGS])
      const [row] = yield* store.query()
      assert.strictEqual(row.outcome, "ok")
      assert.strictEqual(row.approval, "allow:elicitation:bob")
    }))

  it.effect("a state is refused once it has expired (approvals.timeoutSeconds), and the row says why", () =>
    Effect.gen(function*() {
      const { runs, transfer, store } = yield* replica()
      const state = stateOf(yield* transfer(firstRequest()))
      yield* TestClock.adjust(60_000)
      const end = yield* transfer(retry(state, APPROVE))
      assert.deepStrictEqual(end, {
        _tag: "Error",
        error: "StateRefused: the approval state was refused (expired): it has expired"
      })
      assert.deepStrictEqual(runs, [])
      const [row] = yield* store.query()
      // Refused, not denied: the retry's state failed its checks, and nothing reached the server.
      assert.strictEqual(row.outcome, "refused")
      assert.isFalse(row.sent)
      assert.include(row.error, "(expired)")
    }))

  it.effect("a state answers one retry: a replay is refused", () =>
    Effect.gen(function*() {
      const { runs, transfer } = yield* replica()
      const state = stateOf(yield* transfer(firstRequest()))
      assert.strictEqual((yield* transfer(retry(state, APPROVE)))._tag, "Ok")
      assert.deepStrictEqual(yield* transfer(retry(state, APPROVE)), {
        _tag: "Error",
        error: "StateRefused: the approval state was refused (replayed): it was used before"
      })
      assert.strictEqual(runs.length, 1)
    }))

  it.effect(
    "approving binds exactly the digest: a retry with changed arguments is refused, and the state still " +
      "serves the call it was asked for",
    () =>
      Effect.gen(function*() {
        const { runs, transfer, store } = yield* replica()
        const state = stateOf(yield* transfer(firstRequest()))
        const changed = yield* transfer(retry(state, APPROVE), { to: ACCOUNT, amount: 10_000 })
        assert.deepStrictEqual(changed, {
          _tag: "Error",
          error:
            "StateRefused: the approval state was refused (call): it belongs to another call (the tool, the request " +
            "or its arguments differ)"
        })
        assert.deepStrictEqual(runs, [])
        // The refused reason quotes no arguments, in the answer or the row.
        const [row] = yield* store.query()
        assert.notInclude(JSON.stringify(row), "10000")
        assert.strictEqual((yield* transfer(retry(state, APPROVE)))._tag, "Ok")
        assert.deepStrictEqual(runs, [ARGS])
      })
  )

  it.effect("another principal cannot use bob's state", () =>
    Effect.gen(function*() {
      const { runs, transfer } = yield* replica()
      const state = stateOf(yield* transfer(firstRequest()))
      const end = yield* transfer(retry(state, APPROVE), ARGS, who("mallory"))
      assert.deepStrictEqual(end, {
        _tag: "Error",
        error: "StateRefused: the approval state was refused (principal): it belongs to another principal"
      })
      assert.deepStrictEqual(runs, [])
    }))

  it.effect(
    "a retry that answers anything but accept with exactly { approve: true } denies (declines, junk, extra " +
      "fields, huge or deeply nested answers)",
    () =>
      Effect.gen(function*() {
        const { runs, transfer } = yield* replica()
        let nested: unknown = true
        for (let depth = 0; depth < 10_000; depth++) nested = { approve: nested }
        const answers = [
          { action: "decline" },
          { action: "cancel" },
          { action: "decline", content: { approve: true } },
          { action: "accept", content: { approve: "true" } },
          { action: "accept" },
          { action: "ACCEPT", content: { approve: true } },
          { ...APPROVE, extra: true },
          { action: "accept", content: { approve: true, note: "x".repeat(1_000_000) } },
          { action: "accept", content: nested },
          "yes",
          null,
          [APPROVE]
        ]
        for (const answer of answers) {
          const state = stateOf(yield* transfer(firstRequest()))
          const end = yield* transfer(retry(state, answer))
          assert.strictEqual(end._tag, "Error")
          if (end._tag === "Error") {
            assert.match(
              end.error,
              new RegExp(
                "^Denied: approval denied: (the user declined|the approval form did not say approve: true|" +
                  "the host's answer is not an answer to the approval form)$"
              )
            )
          }
        }
        assert.deepStrictEqual(runs, [])
      })
  )

  it.effect("a retry without the approval's answer is asked again; one with an answer and no state is refused", () =>
    Effect.gen(function*() {
      const { runs, transfer } = yield* replica()
      const state = stateOf(yield* transfer(firstRequest()))
      const again = yield* transfer({ inputResponses: { other: APPROVE }, requestState: state })
      assert.strictEqual(again._tag, "InputRequired")
      assert.deepStrictEqual(yield* transfer(retry(undefined, APPROVE)), {
        _tag: "Error",
        error: "StateRefused: the approval state was refused (missing): the retry carried no state"
      })
      assert.deepStrictEqual(runs, [])
    }))

  it.effect("any replica sharing approvals.stateKey and the single-use marks finishes the call, once", () =>
    Effect.gen(function*() {
      const used = yield* Layer.build(UsedStates.memory)
      const shared = Layer.merge(StateSeal.fromSecret(KEY), Layer.succeedContext(used))
      const a = yield* replica(shared)
      const b = yield* replica(shared)
      const state = stateOf(yield* a.transfer(firstRequest()))
      assert.deepStrictEqual(yield* b.transfer(retry(state, APPROVE)), { _tag: "Ok", text: "sent 10" })
      assert.deepStrictEqual(yield* a.transfer(retry(state, APPROVE)), {
        _tag: "Error",
        error: "StateRefused: the approval state was refused (replayed): it was used before"
      })
      assert.deepStrictEqual([a.runs.length, b.runs.length], [0, 1])
    }))

  it.effect("a replica with a generated key cannot open another's state; one under another rule refuses it", () =>
    Effect.gen(function*() {
      const a = yield* replica()
      const generated = yield* replica(Layer.merge(StateSeal.generated, UsedStates.memory))
      const reloaded = yield* replica(keyed, "money-v2")
      const state = stateOf(yield* a.transfer(firstRequest()))
      assert.deepStrictEqual(yield* generated.transfer(retry(state, APPROVE)), {
        _tag: "Error",
        error:
          "StateRefused: the approval state was refused (tampered): it is not a state this gateway sealed, or it " +
          "was changed"
      })
      assert.deepStrictEqual(yield* reloaded.transfer(retry(state, APPROVE)), {
        _tag: "Error",
        error: "StateRefused: the approval state was refused (rule): it was asked by another rule"
      })
      assert.deepStrictEqual([generated.runs, reloaded.runs], [[], []])
    }))
})

describe("approvals of 2025 hosts stay as they were", () => {
  it.effect("without host input, the host's elicitation function is asked", () =>
    Effect.gen(function*() {
      const { runs, transfer } = yield* replica()
      const asked: Array<string> = []
      const elicit = (params: { readonly message: string }) => {
        asked.push(params.message)
        return Promise.resolve({ action: "accept", content: { approve: true } })
      }
      assert.strictEqual((yield* Effect.provideService(transfer(undefined), CurrentElicit, elicit))._tag, "Ok")
      assert.strictEqual(asked.length, 1)
      assert.strictEqual(runs.length, 1)
    }))

  it.effect(
    "a 2026-07-28 host without form elicitation waits in the console (auto), as a 2025 host without " +
      "elicitation does",
    () =>
      Effect.gen(function*() {
        const { runs, transfer, queue } = yield* replica()
        const call = yield* Effect.forkChild(
          transfer({ inputResponses: {}, requestState: undefined, elicitation: false })
        )
        yield* Effect.yieldNow
        const [pending] = queue.list()
        assert.strictEqual(pending.principal, "bob")
        assert.isTrue(yield* queue.answer(pending.id, { decision: "allow" }, pending.digest))
        assert.deepStrictEqual(yield* Fiber.join(call), { _tag: "Ok", text: "sent 10" })
        assert.strictEqual(runs.length, 1)
      })
  )
})
