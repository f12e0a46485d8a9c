/**
 * Issue 10, invalid calls: a call with a bad name or arguments that are not a JSON object is
 * refused, and like every other error it carries a receipt and runs the failure hooks. Nothing
 * reaches the transport and no pre-call hook sees it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { type CallError, ToolCalls, Verdict } from "../src/index.ts"
import { client } from "./fixtures.ts"

const cycle: Record<string, unknown> = {}
cycle.self = cycle

/** Inputs a host or script could send, and the field the error must name. */
const INVALID: ReadonlyArray<readonly [string, unknown, RegExp]> = [
  ["empty name", { serverId: "srv", name: "" }, /name must be a non-empty string/],
  ["name not a string", { serverId: "srv", name: 5 }, /name must be a non-empty string/],
  ["empty serverId", { serverId: "", name: "echo" }, /serverId must be a non-empty string/],
  ["args a function", { serverId: "srv", name: "echo", args: () => 1 }, /args must be a JSON object/],
  ["args with a function", { serverId: "srv", name: "echo", args: { f: () => 1 } }, /args must be a JSON object/],
  ["args with a bigint", { serverId: "srv", name: "echo", args: { n: 1n } }, /args must be a JSON object/],
  ["args with a cycle", { serverId: "srv", name: "echo", args: cycle }, /args must be a JSON object/],
  ["args with NaN", { serverId: "srv", name: "echo", args: { n: Number.NaN } }, /args must be a JSON object/],
  [
    "args with an undefined value",
    { serverId: "srv", name: "echo", args: { path: undefined } },
    /args must be a JSON object/
  ],
  ["args an array", { serverId: "srv", name: "echo", args: [1] }, /args must be a JSON object/],
  ["meta with a symbol", { serverId: "srv", name: "echo", meta: { s: Symbol("x") } }, /meta must be a JSON object/],
  ["not an object", null, /the call must be an object/],
  ["a getter that throws", {
    serverId: "srv",
    name: "echo",
    get args() {
      throw new Error("boom")
    }
  }, /the call could not be read/]
]

/** A client whose pre-call hook and failure hook record what they saw. */
const failureRecordingClient = () => {
  const pre: Array<unknown> = []
  const failed: Array<{ readonly name: string; readonly args: unknown; readonly error: string }> = []
  const { layer, log } = client({
    preToolCall: [{
      match: "*",
      id: "pre",
      run: (call) => {
        pre.push(call)
        return Verdict.continue
      }
    }],
    toolCallFailed: [{
      match: "*",
      id: "on-failure",
      run: (call, error: CallError) => {
        failed.push({ name: call.name, args: call.args, error: error._tag })
        return Verdict.continue
      }
    }]
  })
  return { failed, layer, log, pre }
}

describe("security: invalid calls", () => {
  it.effect("every invalid call fails with a receipt, after the failure hooks ran; nothing is sent", () =>
    Effect.suspend(() => {
      const { failed, layer, log, pre } = failureRecordingClient()
      return Effect.gen(function*() {
        const calls = yield* ToolCalls
        for (const [label, input, detail] of INVALID) {
          const before = failed.length
          const error = yield* Effect.flip(calls.callTool(input as never))
          assert.strictEqual(error._tag, "ProtocolError", label)
          assert.match(error.message, detail, label)
          assert.isDefined(error.receipt, label)
          assert.strictEqual(error.receipt?.outcome, "failed", label)
          assert.isFalse(error.receipt?.sent, label)
          assert.deepStrictEqual(
            error.receipt?.hooks.map((run) => `${run.id}:${run.status}`),
            ["on-failure:continue"],
            label
          )
          assert.strictEqual(failed.length, before + 1, label)
          // The failure hook never sees the invalid arguments.
          assert.deepStrictEqual(failed[before].args, {}, label)
        }
        assert.deepStrictEqual(pre, [])
        assert.deepStrictEqual(log.calls, [])
      }).pipe(Effect.provide(layer))
    }))

  it.effect("each field is read once: a getter cannot pass the check with one value and send another", () =>
    Effect.gen(function*() {
      const { layer, log } = client({})
      let reads = 0
      const input = {
        serverId: "srv",
        name: "echo",
        get args() {
          reads++
          return reads === 1 ? { path: "ok" } : { path: () => "/etc/shadow" }
        }
      }
      const result = yield* Effect.provide(Effect.flatMap(ToolCalls, (calls) => calls.callTool(input as never)), layer)
      assert.strictEqual(reads, 1)
      assert.deepStrictEqual(log.calls.map((c) => c.args), [{ path: "ok" }])
      assert.isDefined(result.receipt)
    }))

  it.effect(
    "a getter or Proxy nested in args or meta is read once: the hooks, the policy and the wire " +
      "see one value",
    () =>
      Effect.gen(function*() {
        const seen: Array<unknown> = []
        const { layer, log } = client({
          preToolCall: [{
            match: "*",
            id: "pre",
            run: (call) => {
              seen.push(JSON.stringify(call.args))
              return Verdict.continue
            }
          }]
        })
        let reads = 0
        let metaReads = 0
        let proxyReads = 0
        const args = {
          file: {
            get path() {
              reads++
              return reads === 1 ? "ok" : "/etc/shadow"
            }
          },
          list: new Proxy({ a: "x" }, {
            get: (target, key) => {
              proxyReads++
              return proxyReads === 1 ? Reflect.get(target, key) : "evil"
            }
          })
        }
        const meta = {
          trace: {
            get id() {
              metaReads++
              return metaReads === 1 ? "t1" : "t2"
            }
          }
        }
        yield* Effect.provide(
          Effect.flatMap(ToolCalls, (calls) => calls.callTool({ serverId: "srv", name: "echo", args, meta } as never)),
          layer
        )
        assert.strictEqual(reads, 1)
        assert.strictEqual(metaReads, 1)
        assert.strictEqual(proxyReads, 1)
        assert.deepStrictEqual(seen, [JSON.stringify({ file: { path: "ok" }, list: { a: "x" } })])
        assert.strictEqual(
          JSON.stringify(log.calls.map((c) => c.args)),
          JSON.stringify([{ file: { path: "ok" }, list: { a: "x" } }])
        )
      })
  )

  it.effect("arguments nested 100,000 deep are an invalid call, not a crash; nothing is sent", () =>
    Effect.gen(function*() {
      const { layer, log } = client({})
      let deep: Record<string, unknown> = { leaf: 1 }
      for (let i = 0; i < 100_000; i++) deep = { d: deep }
      const error = yield* Effect.flip(
        Effect.provide(
          Effect.flatMap(ToolCalls, (calls) => calls.callTool({ serverId: "srv", name: "echo", args: deep } as never)),
          layer
        )
      )
      assert.strictEqual(error._tag, "ProtocolError")
      assert.match(error.message, /args/)
      assert.deepStrictEqual(log.calls, [])
    }))
})
