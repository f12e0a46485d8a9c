/**
 * Sealed approval states against a hostile 2026-07-28 host, over the gateway's real HTTP front with a real SDK 2.4
 * client and a real stdio server that records every call it receives. The host retries with a
 * tampered, expired, replayed, borrowed (another principal's, another call's) or wrong-purpose
 * state, or with an answer that is not an explicit yes; each is refused (a refused state with a
 * JSON-RPC error naming only the kind of refusal), its audit row says why, and the tool never runs. Two gateways
 * sharing approvals.stateKey finish each other's calls once.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Redacted } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { APPROVAL_INPUT, APPROVAL_PURPOSE } from "../../src/calls/ApprovalRound.ts"
import { fromObject } from "../../src/config/ConfigLoader.ts"
import { Gateway } from "../../src/runtime/Gateway.ts"
import { makePlan } from "../../src/runtime/PlanBuilder.ts"
import { StateSeal } from "../../src/state/StateSeal.ts"
import { UsedStates } from "../../src/state/UsedStates.ts"
import { who } from "../approval-host.ts"
import { NODE } from "../e2e.ts"
import { type CallParams, callText, type Front, modernClient, modernFront, principalsConfig } from "../modern-front.ts"

const STATE_KEY = "an approval state key shared by every replica of the test"
const TOOL = "transfer_funds"
const ACCOUNT = "ACCT-99887766"
const ARGS = { to: ACCOUNT, memo: "rent" }
const YES = { action: "accept", content: { approve: true } } as const

/** A fresh file the recording server appends every call it receives to. */
const recordFile = () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "interlock-approval-states-")), "calls.jsonl")
  writeFileSync(file, "")
  return file
}

/**
 * A gateway over the recording server, with `states` as its approval-state services and `stateKey` as its configured
 * key.
 */
const gateway = (file: string, states: Layer.Layer<StateSeal | UsedStates>, stateKey = STATE_KEY) =>
  Effect.gen(function*() {
    const loaded = yield* fromObject({
      servers: {
        bank: {
          command: NODE,
          args: [path.join(import.meta.dirname, "recording-server.ts")],
          env: { RECORD_FILE: file }
        }
      },
      policy: {
        default: "allow",
        rules: [{ id: "money", match: `bank/${TOOL}`, decision: "ask", reason: "moving money needs a person" }]
      },
      redact: [{ pattern: "ACCT-[0-9]+" }],
      audit: { path: ":memory:" },
      approvals: { timeoutSeconds: 60, stateKey: "env:STATE_KEY" },
      listen: principalsConfig.listen
    }, process.cwd())
    const plan = makePlan(loaded, { env: { STATE_KEY: stateKey, ...principalsConfig.env } })
    if (!("servers" in plan)) return yield* Effect.fail(plan)
    return Context.get(yield* Layer.build(Gateway.layer(plan, states)), Gateway)
  })

const shared = Layer.merge(StateSeal.fromSecret(Redacted.make(STATE_KEY)), UsedStates.memory)

/** One gateway, its fronts for bob and mallory, and what reached the server. */
const setup = Effect.gen(function*() {
  const file = recordFile()
  const gw = yield* gateway(file, shared)
  const bob = yield* modernFront(gw, who("bob"))
  const mallory = yield* modernFront(gw, who("mallory"))
  const received = () => readFileSync(file, "utf8")
  const lastError = Effect.map(gw.store.query(), (rows) => rows[0]?.error ?? "")
  return { gw, bob, mallory, received, lastError }
})

/** A state the client echoes is kept here; its own retry is then sabotaged, so the state stays unused. */
const stealState = (into: Array<string>) => (params: CallParams): CallParams => {
  into.push(params.requestState ?? "")
  return { ...params, requestState: "sabotaged" }
}

/**
 * Seals `payload` for `purpose` with the gateway's key: what an expired or wrong-purpose state of the gateway's own
 * looks like.
 */
const sealWithKey = (purpose: string, payload: Record<string, unknown>, ttlMs: number) =>
  Effect.gen(function*() {
    return yield* (yield* StateSeal).seal(purpose, payload, ttlMs)
  }).pipe(Effect.provide(StateSeal.fromSecret(Redacted.make(STATE_KEY))))

const openWithKey = (state: string) =>
  Effect.gen(function*() {
    return yield* (yield* StateSeal).open(APPROVAL_PURPOSE, state)
  }).pipe(Effect.provide(StateSeal.fromSecret(Redacted.make(STATE_KEY))))

/** A bob client whose retry swaps in `state`. */
const withState = (front: Front, state: string) =>
  modernClient(front, { answer: () => YES, retry: (params) => ({ ...params, requestState: state }) })

/** A state bob was asked for, for `args`, left unused. */
const unusedState = (front: Front, args: Record<string, unknown>) =>
  Effect.gen(function*() {
    const stolen: Array<string> = []
    const client = yield* modernClient(front, { answer: () => YES, retry: stealState(stolen) })
    yield* callText(client, TOOL, args)
    return stolen[0]!
  })

describe("approval states: the round trip of a 2026-07-28 host", () => {
  it.live(
    "an SDK 2.4 client with an elicitation handler approves and the call runs once; the person saw the reason " +
      "and redacted arguments",
    () =>
      Effect.gen(function*() {
        const { gw, bob, received } = yield* setup
        const shown: Array<string> = []
        const client = yield* modernClient(bob, { answer: (params) => (shown.push(params.message), YES) })
        assert.deepStrictEqual(yield* callText(client, TOOL, ARGS), { isError: false, text: "sent to [REDACTED]" })
        assert.strictEqual(shown.length, 1)
        assert.include(shown[0], "moving money needs a person")
        assert.include(shown[0], "bank/transfer_funds by bob")
        assert.notInclude(shown[0], ACCOUNT)
        assert.strictEqual(received().trim().split("\n").length, 1)
        const rows = yield* gw.store.query()
        assert.deepStrictEqual(rows.map((row) => [row.outcome, row.approval ?? null]), [
          ["ok", "allow:elicitation:bob"],
          [
            "input_required",
            null
          ]
        ])
      })
  )

  it.live("a person who declines or cancels denies the call", () =>
    Effect.gen(function*() {
      const { bob, received } = yield* setup
      for (const action of ["decline", "cancel"] as const) {
        const client = yield* modernClient(bob, { answer: () => ({ action }) })
        const result = yield* callText(client, TOOL, ARGS)
        assert.deepStrictEqual(result, { isError: true, text: "Interlock: approval denied: the user declined" })
      }
      assert.strictEqual(received(), "")
    }))

  it.live(
    "any replica sharing approvals.stateKey and the single-use marks finishes the call, once; a replica with " +
      "another key cannot",
    () =>
      Effect.gen(function*() {
        const file = recordFile()
        const used = yield* Layer.build(UsedStates.memory)
        const states = Layer.merge(StateSeal.fromSecret(Redacted.make(STATE_KEY)), Layer.succeedContext(used))
        const a = yield* modernFront(yield* gateway(file, states), who("bob"))
        const b = yield* modernFront(yield* gateway(file, states), who("bob"))
        const other = yield* modernFront(
          yield* gateway(
            file,
            Layer.merge(StateSeal.generated, UsedStates.memory),
            "another replica's approval state key, not shared"
          ),
          who("bob")
        )
        const retried: Array<string> = []
        const turns = yield* modernClient(a, {
          answer: () => YES,
          route: (round) => (round === 0 ? a.url : b.url),
          retry: (params) => (retried.push(params.requestState ?? ""), params)
        })
        assert.deepStrictEqual(yield* callText(turns, TOOL, ARGS), { isError: false, text: "sent to [REDACTED]" })
        // The same state again, on the replica that sealed it: used on b, so refused on a.
        const replay = yield* withState(a, retried[0]!)
        assert.deepStrictEqual(yield* callText(replay, TOOL, ARGS), rejected("replayed", "it was used before"))
        const foreign = yield* modernClient(a, {
          answer: () => YES,
          route: (round) => (round === 0 ? a.url : other.url)
        })
        assert.deepStrictEqual(
          yield* callText(foreign, TOOL, ARGS),
          rejected("tampered", "it is not a state this gateway sealed, or it was changed")
        )
        assert.strictEqual(readFileSync(file, "utf8").trim().split("\n").length, 1)
      })
  )
})

/**
 * A retry whose state was refused, as the host sees it: a JSON-RPC error (the client throws it) naming only the kind of
 * refusal.
 */
const rejected = (why: string, text: string) => ({
  isError: true,
  text: `client error: Interlock: the approval state was refused (${why}): ${text}`
})

describe("approval states: a hostile host", () => {
  /**
   * Bob asks, his retry carries `alter` of his (unused) state: how the call ended, its row's error, and what reached
   * the server.
   */
  const retriedWith = <E>(alter: (state: string) => Effect.Effect<string, E>) =>
    Effect.gen(function*() {
      const { bob, received, lastError } = yield* setup
      const client = yield* withState(bob, yield* alter(yield* unusedState(bob, ARGS)))
      return { result: yield* callText(client, TOOL, ARGS), error: yield* lastError, received: received() }
    })

  it.live("a tampered state is refused", () =>
    Effect.gen(function*() {
      const tamper = (state: string) => {
        const middle = Math.floor(state.length / 2)
        return Effect.succeed(state.slice(0, middle) + (state[middle] === "A" ? "B" : "A") + state.slice(middle + 1))
      }
      const { result, error, received } = yield* retriedWith(tamper)
      assert.deepStrictEqual(result, rejected("tampered", "it is not a state this gateway sealed, or it was changed"))
      assert.include(error, "(tampered)")
      assert.strictEqual(received, "")
    }))

  it.live("an expired state of the gateway's own key is refused", () =>
    Effect.gen(function*() {
      const { result, error, received } = yield* retriedWith((state) =>
        Effect.flatMap(openWithKey(state), (opened) => sealWithKey(APPROVAL_PURPOSE, opened.payload, -60_000))
      )
      assert.deepStrictEqual(result, rejected("expired", "it has expired"))
      assert.include(error, "(expired)")
      assert.strictEqual(received, "")
    }))

  it.live("a state sealed for another purpose (relay) is refused", () =>
    Effect.gen(function*() {
      const { result, error, received } = yield* retriedWith((state) =>
        Effect.flatMap(openWithKey(state), (opened) => sealWithKey("relay", opened.payload, 60_000))
      )
      assert.deepStrictEqual(result, rejected("purpose", "it was sealed for another purpose"))
      assert.include(error, "(purpose)")
      assert.strictEqual(received, "")
    }))

  it.live("a used state is refused when replayed", () =>
    Effect.gen(function*() {
      const { bob, received } = yield* setup
      const echoed: Array<string> = []
      const honest = yield* modernClient(bob, {
        answer: () => YES,
        retry: (params) => (echoed.push(params.requestState ?? ""), params)
      })
      assert.isFalse((yield* callText(honest, TOOL, ARGS)).isError)
      const replay = yield* withState(bob, echoed[0]!)
      assert.deepStrictEqual(yield* callText(replay, TOOL, ARGS), rejected("replayed", "it was used before"))
      assert.strictEqual(received().trim().split("\n").length, 1)
    }))

  it.live("another principal's state is refused", () =>
    Effect.gen(function*() {
      const { bob, mallory, received } = yield* setup
      const bobs = yield* unusedState(bob, ARGS)
      const client = yield* withState(mallory, bobs)
      assert.deepStrictEqual(
        yield* callText(client, TOOL, ARGS),
        rejected("principal", "it belongs to another principal")
      )
      assert.strictEqual(received(), "")
    }))

  it.live("another call's state is refused, and the refusal quotes none of the arguments", () =>
    Effect.gen(function*() {
      const { bob, received, lastError } = yield* setup
      const small = yield* unusedState(bob, ARGS)
      const client = yield* withState(bob, small)
      const result = yield* callText(client, TOOL, { to: "ACCT-00000001", memo: "EVERYTHING-MARKER" })
      assert.deepStrictEqual(
        result,
        rejected("call", "it belongs to another call (the tool, the request or its arguments differ)")
      )
      assert.notInclude(yield* lastError, "EVERYTHING-MARKER")
      assert.strictEqual(received(), "")
    }))

  it.live(
    "an answer that is not exactly accept with { approve: true } denies: junk, extra fields, a huge or a " +
      "deeply nested answer",
    () =>
      Effect.gen(function*() {
        const { bob, received } = yield* setup
        let nested: unknown = true
        for (let depth = 0; depth < 2_000; depth++) nested = { approve: nested }
        const answers: ReadonlyArray<unknown> = [
          "yes",
          { action: "accept", content: { approve: "true" } },
          { action: "accept", content: { approve: true, note: "x".repeat(512 * 1024) } },
          { action: "accept", content: nested },
          { action: "Accept", content: { approve: true } }
        ]
        for (const answer of answers) {
          const client = yield* modernClient(bob, {
            answer: () => YES,
            retry: (params) => ({ ...params, inputResponses: { [APPROVAL_INPUT]: answer } })
          })
          const result = yield* callText(client, TOOL, ARGS)
          // A bare "yes" is not an answer object: the door refuses the retry (-32602) before anything runs.
          assert.include(
            [
              "Interlock: approval denied: the host's answer is not an answer to the approval form",
              "client error: Interlock: each answer in inputResponses must be an object"
            ],
            result.text
          )
        }
        assert.strictEqual(received(), "")
        // The gateway still serves an honest approval afterwards.
        const honest = yield* modernClient(bob, { answer: () => YES })
        assert.deepStrictEqual(yield* callText(honest, TOOL, ARGS), { isError: false, text: "sent to [REDACTED]" })
      })
  )

  it.live(
    "a 2026-07-28 host that declares no elicitation is never handed the form: its ask waits in the console, " +
      "and a denial there stops the call",
    () =>
      Effect.gen(function*() {
        const { gw, bob, received } = yield* setup
        const asked: Array<string> = []
        const client = yield* modernClient(bob, {
          answer: (params) => (asked.push(params.message), YES),
          capabilities: {}
        })
        const call = yield* Effect.forkChild(callText(client, TOOL, ARGS))
        while (gw.approvals.list().length === 0) {
          yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
        }
        const [pending] = gw.approvals.list()
        assert.notInclude(JSON.stringify(pending!.args), ACCOUNT)
        assert.isTrue(yield* gw.approvals.answer(pending!.id, { decision: "deny", reason: "not today", by: "alice" }))
        const result = yield* Fiber.join(call)
        assert.isTrue(result.isError)
        assert.include(result.text, "not today")
        assert.deepStrictEqual(asked, [])
        assert.strictEqual(received(), "")
      })
  )
})
