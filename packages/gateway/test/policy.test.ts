import { assert, describe, it } from "@effect/vitest"
import { Principal, type Tool } from "@interlock/core"
import { Effect, Fiber, Schema } from "effect"
import { TestClock } from "effect/testing"
import { AuditStore } from "../src/audit/AuditStore.ts"
import { GatewayCalls } from "../src/calls/GatewayCalls.ts"
import { compileArgConditions } from "../src/governance/ArgConditions.ts"
import { ApprovalQueue } from "../src/state/ApprovalQueue.ts"
import { withGateway } from "./fixtures.ts"

const policy = {
  default: "allow",
  rules: [
    { id: "no-env", match: "files/get-env", decision: "deny", reason: "environment is private" },
    { id: "outside", match: "files/*", decision: "deny", when: { args: { path: { notStartsWith: "./sandbox" } } } },
    { id: "writes", match: "files/write_*", decision: "ask" }
  ]
}

const call = (name: string, args: Record<string, string | number>, principal?: string) =>
  Effect.gen(function*() {
    const calls = yield* GatewayCalls
    return yield* calls.callTool(
      { serverId: "files", name, args },
      principal === undefined ? {} : { principal: new Principal({ id: principal }) }
    )
  })

describe("policy branches through the gateway", () => {
  it.effect("allow: the call reaches the tool and the audit row says allow", () =>
    withGateway(
      { policy },
      Effect.gen(function*() {
        const result = yield* call("read_file", { path: "./sandbox/a.txt" })
        assert.strictEqual(result.text, "contents of ./sandbox/a.txt")
        const [row] = yield* (yield* AuditStore).query()
        assert.strictEqual(row.outcome, "ok")
        assert.strictEqual(row.decision, "allow")
        assert.strictEqual(row.tool, "read_file")
        assert.isUndefined(row.args)
      })
    ))

  it.effect("deny by rule: the reason reaches the caller and the audit", () =>
    withGateway(
      { policy },
      Effect.gen(function*() {
        const error = yield* Effect.flip(call("get-env", {}))
        assert.strictEqual(error._tag, "Denied")
        assert.include(error.message, "environment is private")
        const [row] = yield* (yield* AuditStore).query()
        assert.strictEqual(row.outcome, "denied")
        assert.strictEqual(row.rule, "no-env")
        assert.isFalse(row.receipt?.sent)
      })
    ))

  it.effect("args condition: a path outside the sandbox is denied, inside is not", () =>
    withGateway(
      { policy },
      Effect.gen(function*() {
        const error = yield* Effect.flip(call("read_file", { path: "/etc/passwd" }))
        assert.strictEqual(error._tag, "Denied")
        assert.include(error.message, "outside")
        const ok = yield* call("read_file", { path: "./sandbox/x" })
        assert.strictEqual(ok.receipt?.outcome, "ok")
      })
    ))

  it.effect("ask approved in the console: the call goes through once", () =>
    withGateway(
      { policy },
      Effect.gen(function*() {
        const queue = yield* ApprovalQueue
        const fiber = yield* Effect.forkChild(
          call("write_file", { path: "./sandbox/n.txt", content: "hello sk-abcdefghijklmnopqrstuvwxyz" })
        )
        yield* Effect.yieldNow
        let pending = queue.list()
        while (pending.length === 0) {
          yield* Effect.yieldNow
          pending = queue.list()
        }
        assert.strictEqual(pending[0].tool, "write_file")
        assert.strictEqual(pending[0].rule, "writes")
        assert.isTrue(yield* queue.answer(pending[0].id, { decision: "allow" }))
        const result = yield* Fiber.join(fiber)
        assert.strictEqual(result.text, "wrote ./sandbox/n.txt")
        assert.deepStrictEqual(result.receipt?.approval, { decision: "allow", source: "console" })
        assert.strictEqual(queue.list().length, 0)
      })
    ))

  it.effect("ask denied in the console: Denied with the approval's reason", () =>
    withGateway(
      { policy },
      Effect.gen(function*() {
        const queue = yield* ApprovalQueue
        const fiber = yield* Effect.forkChild(
          Effect.flip(call("write_file", { path: "./sandbox/n.txt", content: "x" }))
        )
        while (queue.list().length === 0) yield* Effect.yieldNow
        yield* queue.answer(queue.list()[0].id, { decision: "deny", reason: "not today" })
        const error = yield* Fiber.join(fiber)
        assert.strictEqual(error._tag, "Denied")
        assert.include(error.message, "not today")
      })
    ))

  it.effect("ask timed out: denied, and the pending entry is gone", () =>
    withGateway(
      { policy, approvals: { timeoutSeconds: 30 } },
      Effect.gen(function*() {
        const queue = yield* ApprovalQueue
        const fiber = yield* Effect.forkChild(
          Effect.flip(call("write_file", { path: "./sandbox/n.txt", content: "x" }))
        )
        while (queue.list().length === 0) yield* Effect.yieldNow
        yield* TestClock.adjust("31 seconds")
        const error = yield* Fiber.join(fiber)
        assert.strictEqual(error._tag, "Denied")
        assert.deepStrictEqual(error._tag === "Denied" ? error.receipt?.approval : undefined, {
          decision: "deny",
          source: "timeout"
        })
        assert.strictEqual(queue.list().length, 0)
        const [row] = yield* (yield* AuditStore).query()
        assert.strictEqual(row.approval, "deny:timeout")
      })
    ))

  it.effect("principals: a rule for alice does not apply to bob", () =>
    withGateway(
      {
        policy: { default: "deny", rules: [{ match: "files/read_file", decision: "allow", principals: ["alice"] }] }
      },
      Effect.gen(function*() {
        const ok = yield* call("read_file", { path: "a" }, "alice")
        assert.strictEqual(ok.receipt?.outcome, "ok")
        const denied = yield* Effect.flip(call("read_file", { path: "a" }, "bob"))
        assert.strictEqual(denied._tag, "Denied")
        const rows = yield* (yield* AuditStore).query()
        assert.deepStrictEqual(rows.map((row) => row.principal), ["bob", "alice"])
      })
    ))

  it.effect("listing passes through the exposed tools", () =>
    withGateway(
      { policy },
      Effect.gen(function*() {
        const tools = yield* (yield* GatewayCalls).listTools()
        assert.include(tools.map((tool: Tool) => tool.name), "write_file")
      })
    ))
})

describe("when.args conditions", () => {
  const compile = (conditions: Record<string, unknown>) => {
    const predicate = compileArgConditions(conditions as never, "p")
    if (typeof predicate !== "function") throw new Error(predicate.message)
    return predicate
  }

  it("equals, in, startsWith, matches", () => {
    assert.isTrue(compile({ mode: { equals: { a: [1, 2] } } })({ mode: { a: [1, 2] } }))
    assert.isFalse(compile({ mode: { equals: "x" } })({}))
    assert.isTrue(compile({ level: { in: ["a", 2] } })({ level: 2 }))
    assert.isFalse(compile({ level: { in: ["a", 2] } })({ level: "2" }))
    assert.isTrue(compile({ url: { matches: "^https://example\\.org/" } })({ url: "https://example.org/x" }))
    assert.isFalse(compile({ url: { matches: "^https://" } })({ url: 3 }))
    assert.isFalse(compile({ p: { startsWith: "./s" } })({ p: ["./s"] }))
  })

  it("within and notWithin resolve . and .. before comparing", () => {
    const inside = compile({ path: { within: "./sandbox" } })
    assert.isTrue(inside({ path: "./sandbox/notes.txt" }))
    assert.isTrue(inside({ path: "sandbox/a/../b" }))
    assert.isFalse(inside({ path: "./sandbox/../etc/passwd" }))
    assert.isFalse(inside({ path: "./sandboxed" }))
    assert.isFalse(inside({ path: 7 }))
    const outside = compile({ path: { notWithin: "./sandbox" } })
    assert.isTrue(outside({ path: "./sandbox/../../root" }))
    assert.isTrue(outside({}))
    assert.isFalse(outside({ path: "./sandbox/x" }))
  })

  it.effect.prop("a path that climbs out with .. is never within the root", [
    Schema.Array(Schema.String.check(Schema.isPattern(/^[a-z]{1,8}$/)))
  ], ([segments]) =>
    Effect.sync(() => {
      const inside = compile({ path: { within: "./sandbox" } })
      const down = segments.join("/")
      assert.strictEqual(inside({ path: `./sandbox/${down}` }), true)
      const up = segments.map(() => "..").join("/")
      assert.strictEqual(inside({ path: `./sandbox/${down}/${up}/../etc` }), false)
    }))

  it("a bad regex names its path", () => {
    const error = compileArgConditions({ q: { matches: "(" } }, "policy.rules[3].when.args")
    assert.notStrictEqual(typeof error, "function")
    assert.strictEqual((error as { path: string }).path, "policy.rules[3].when.args.q.matches")
  })

  it.effect.prop(
    "notStartsWith is exactly the negation of startsWith on any value",
    [Schema.String, Schema.Json],
    ([prefix, value]) =>
      Effect.sync(() => {
        const starts = compile({ k: { startsWith: prefix } })({ k: value })
        const notStarts = compile({ k: { notStartsWith: prefix } })({ k: value })
        assert.strictEqual(notStarts, !starts)
      })
  )

  it.effect.prop(
    "equals holds for a value and any key order of it",
    [Schema.Record(Schema.String, Schema.Finite)],
    ([record]) =>
      Effect.sync(() => {
        const reversed = Object.fromEntries(Object.entries(record).reverse())
        assert.isTrue(compile({ k: { equals: record } })({ k: reversed }))
        assert.isTrue(compile({ k: { in: [1, reversed] } })({ k: record }))
      })
  )
})
