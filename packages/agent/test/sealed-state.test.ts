/**
 * A suspended run's state is sealed with the agent's stateKey: whoever can edit a saved state
 * cannot get a call approved on resume, whatever they edit (arguments and digests together,
 * transcript, tools), and a state sealed with another key is refused. Nothing runs on a refusal.
 */
import { assert, describe, it } from "@effect/vitest"
import { Policy, ToolCall } from "@interlock/core"
import { Effect, Redacted, Schema } from "effect"
import { Agent, RunState, RunStateSeal } from "../src/index.ts"
import { fake, openAi, text, toolCalls } from "./support/FakeLlm.ts"
import { payTool } from "./support/tools.ts"

const KEY = Redacted.make("sealed-state-test-key-0123456789abcdef")
const OTHER = Redacted.make("another-agent-state-key-0123456789abcdef")

const setup = Effect.gen(function*() {
  const { paid, pay } = payTool()
  const server = yield* fake((body) =>
    body.messages.some((m: any) => m.role === "tool")
      ? text("settled")
      : toolCalls([{ id: "c1", name: "pay", args: { amount: 5 } }])
  )
  const options = {
    model: openAi(server),
    tools: [pay],
    policy: Policy.rules({
      rules: [{ id: "ask-pay", match: "pay", decision: "ask" as const, reason: "payments need a human" }],
      default: "deny"
    })
  }
  return { paid, server, options }
})

/** The attacker's edit: a new amount, and both digests recomputed for it (they are plain SHA-256). */
const forge = (json: string, amount: number): string => {
  const raw = JSON.parse(json)
  const slot = raw.slots.find((s: any) => s.id === "c1")
  slot.args = { amount }
  const digest =
    new ToolCall({ serverId: slot.serverId, name: slot.toolName, args: slot.args, callId: "-", meta: undefined }).digest
  slot.digest = digest
  slot.requestDigest = digest
  return JSON.stringify(raw)
}

describe("sealed run states", () => {
  it.effect(
    "arguments and digests edited together: resume refuses it, the tool never runs, the model is not " +
      "asked again",
    () =>
      Effect.gen(function*() {
        const { paid, server, options } = yield* setup
        const first = yield* Agent.run("pay", { ...options, stateKey: KEY })
        assert.strictEqual(first.status, "pending")
        const forged = yield* RunState.fromJson(forge(RunState.toJson(first.state!), 500))
        const error = yield* Effect.flip(Agent.resume(forged, "approve", { ...options, stateKey: KEY }))
        assert.strictEqual(error._tag, "UntrustedRunState")
        assert.deepStrictEqual(paid, [])
        assert.strictEqual(server.requests.length, 1)
      })
  )

  it.effect("a state sealed with another key is refused; nothing runs", () =>
    Effect.gen(function*() {
      const { paid, server, options } = yield* setup
      const first = yield* Agent.run("pay", { ...options, stateKey: OTHER })
      const error = yield* Effect.flip(Agent.resume(first.state!, "approve", { ...options, stateKey: KEY }))
      assert.deepStrictEqual([error._tag, error._tag === "UntrustedRunState" && error.reason], [
        "UntrustedRunState",
        "seal_mismatch"
      ])
      assert.deepStrictEqual(paid, [])
      assert.strictEqual(server.requests.length, 1)
    }))

  it.effect("a state without its seal is refused as unsealed", () =>
    Effect.gen(function*() {
      const { paid, options } = yield* setup
      const first = yield* Agent.run("pay", { ...options, stateKey: KEY })
      const { seal: _, ...raw } = JSON.parse(RunState.toJson(first.state!))
      const error = yield* Effect.flip(
        Agent.resume(yield* RunState.fromJson(JSON.stringify(raw)), "approve", { ...options, stateKey: KEY })
      )
      assert.deepStrictEqual([error._tag, error._tag === "UntrustedRunState" && error.reason], [
        "UntrustedRunState",
        "unsealed"
      ])
      assert.deepStrictEqual(paid, [])
    }))

  it.effect("a genuine state resumes across agents sharing the key, through JSON; the seal is no key", () =>
    Effect.gen(function*() {
      const { paid, options } = yield* setup
      const first = yield* Agent.run("pay", { ...options, stateKey: KEY })
      const json = RunState.toJson(first.state!)
      assert.notInclude(json, Redacted.value(KEY))
      const resumed = yield* Agent.resume(yield* RunState.fromJson(json), "approve", { ...options, stateKey: KEY })
      assert.strictEqual(resumed.status, "done")
      assert.deepStrictEqual(paid, [5])
    }))

  it.effect("without a stateKey a state resumes on the agent that made it only", () =>
    Effect.gen(function*() {
      const { paid, options } = yield* setup
      const agent = yield* Agent.make(options)
      const first = yield* agent.run("pay")
      // A new agent cannot check the state without the key that sealed it: the one-shot resume says so.
      const elsewhere = yield* Effect.flip(Agent.resume(first.state!, "approve", options))
      assert.strictEqual(elsewhere._tag, "ConfigError")
      assert.strictEqual(elsewhere._tag === "ConfigError" ? elsewhere.path : "", "stateKey")
      const other = yield* Agent.make(options)
      assert.strictEqual((yield* Effect.flip(other.resume(first.state!, "approve")))._tag, "UntrustedRunState")
      assert.deepStrictEqual(paid, [])
      const resumed = yield* agent.resume(first.state!, "approve")
      assert.strictEqual(resumed.status, "done")
      assert.deepStrictEqual(paid, [5])
    }))

  it.effect("a stateKey shorter than 32 characters, or not Redacted, is a ConfigError", () =>
    Effect.gen(function*() {
      const { options } = yield* setup
      for (const stateKey of [Redacted.make("short"), "a-plain-string-key-that-is-long-enough-0123" as any]) {
        const error = yield* Effect.flip(Effect.scoped(Agent.make({ ...options, stateKey })))
        assert.deepStrictEqual([error._tag, (error as any).path], ["ConfigError", "agent.stateKey"])
      }
    }))
})

// One real sealed state, made once, for the property below.
let sealedJson: string | undefined
const sealedState = Effect.suspend(() =>
  sealedJson !== undefined ? Effect.succeed(sealedJson) : Effect.scoped(Effect.gen(function*() {
    const { options } = yield* setup
    const first = yield* Agent.run("pay", { ...options, stateKey: KEY })
    sealedJson = RunState.toJson(first.state!)
    return sealedJson
  }))
)

/** Every path to a string, number or boolean in a JSON value, except the seal itself. */
const leaves = (value: unknown, path: ReadonlyArray<string | number> = []): Array<ReadonlyArray<string | number>> => {
  if (Array.isArray(value)) return value.flatMap((item, index) => leaves(item, [...path, index]))
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap((
      [key, item]
    ) => (path.length === 0 && key === "seal" ? [] : leaves(item, [...path, key])))
  }
  return value === null ? [] : [path]
}

/** The leaf at `path` changed to a different value of the same type. */
const edit = (root: any, path: ReadonlyArray<string | number>, suffix: string): void => {
  const parent = path.slice(0, -1).reduce((node, key) => node[key], root)
  const key = path[path.length - 1]
  const old = parent[key]
  parent[key] = typeof old === "string" ? `${old}${suffix}` : typeof old === "number" ? old + 1 : !old
}

describe("sealed run states, property", () => {
  it.effect.prop(
    "any edit of one or two values of a sealed state is refused (not decoded, or not verified)",
    [
      Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
      Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
      Schema.NonEmptyString,
      Schema.Boolean
    ],
    ([first, second, suffix, twice]) =>
      Effect.gen(function*() {
        const raw = JSON.parse(yield* sealedState)
        const paths = leaves(raw)
        edit(raw, paths[first % paths.length], suffix)
        if (twice) edit(raw, paths[second % paths.length], suffix)
        const verified = yield* Effect.result(
          Effect.flatMap(RunState.fromJson(JSON.stringify(raw)), (state) => RunStateSeal.verify(KEY, state))
        )
        // Two edits of the same number or boolean can cancel out: then the state is the original again.
        const unchanged = JSON.stringify(raw) === sealedJson
        return unchanged ? verified._tag === "Success" : verified._tag === "Failure"
      }),
    { arbitrary: { runs: 200 } }
  )
})
