/**
 * The write-ahead audit in-process: the row exists before the tool runs (also for concurrent calls,
 * whose writes the store commits in groups), an interrupted call completes it, and a store that
 * cannot write fails the call before it is sent.
 */
import { assert, describe, it } from "@effect/vitest"
import { NativeTool, ToolTransport } from "@interlock/core"
import { Effect, Fiber, Layer, Schema } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { AuditError, AuditStore } from "../src/audit/AuditStore.ts"
import * as SqliteAuditStore from "../src/audit/SqliteAuditStore.ts"
import { GatewayCalls } from "../src/calls/GatewayCalls.ts"
import { approvalLayers, planOf } from "./fixtures.ts"

let ran = 0

const tools = [
  // Answers with the outcomes the store holds while the tool runs.
  NativeTool.make({
    name: "peek",
    parameters: Schema.Struct({}),
    run: () =>
      Effect.map(
        Effect.flatMap(Effect.service(AuditStore), (store) => store.query()),
        (rows) => rows.map((row) => `${row.outcome}:${row.sent}`).join(",")
      )
  }),
  NativeTool.make({ name: "forever", parameters: Schema.Struct({}), run: () => Effect.never }),
  NativeTool.make({ name: "count", parameters: Schema.Struct({}), run: () => String(++ran) }),
  // Lets the other calls in flight go first, then answers with its own row as another connection sees it.
  NativeTool.make({
    name: "own_row",
    parameters: Schema.Struct({ nonce: Schema.String }),
    run: ({ nonce }) =>
      Effect.map(Effect.promise(() => new Promise((resolve) => setImmediate(resolve))), () => committedRow(nonce))
  })
]

/** A second connection to the concurrent test's database: it sees committed rows only. */
const groupFile = path.join(mkdtempSync(path.join(tmpdir(), "interlock-write-ahead-")), "audit.db")
let groupReader: DatabaseSync | undefined

/** What the committed row of the call carrying `nonce` says, as `outcome:sent`. */
const committedRow = (nonce: string): string => {
  groupReader ??= new DatabaseSync(groupFile, { readOnly: true })
  const rows = groupReader.prepare("SELECT outcome, sent FROM calls WHERE json_extract(args, '$.nonce') = ?").all(
    nonce
  ) as Array<{ outcome: string; sent: number }>
  return rows.map((row) => `${row.outcome}:${row.sent === 1}`).join(",")
}

const layerWith = (store: Layer.Layer<AuditStore>, raw: Record<string, unknown> = {}) =>
  Effect.map(
    planOf({ policy: { default: "allow" }, ...raw }),
    (plan) =>
      GatewayCalls.layer(plan).pipe(
        Layer.provideMerge(ToolTransport.fromTools(tools, { serverId: "files" })),
        Layer.provideMerge(Layer.mergeAll(store, approvalLayers))
      )
  )

const sqlite = SqliteAuditStore.layer(":memory:").pipe(Layer.orDie)

describe("write-ahead audit", () => {
  it.effect("the row is committed as pending and sent before the tool runs, then completed with the outcome", () =>
    Effect.gen(function*() {
      const calls = yield* GatewayCalls
      const result = yield* calls.callTool({ serverId: "files", name: "peek" })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "pending:true" }], JSON.stringify(result.content))
      const rows = yield* (yield* AuditStore).query()
      assert.deepStrictEqual(rows.map((row) => [row.outcome, row.sent, row.callId === result.receipt?.callId]), [[
        "ok",
        true,
        true
      ]])
    }).pipe(Effect.provide(Layer.unwrap(layerWith(sqlite)))))

  it.effect("an interrupted call (the host cancelled) completes its row as cancelled", () =>
    Effect.gen(function*() {
      const calls = yield* GatewayCalls
      const store = yield* AuditStore
      const fiber = yield* Effect.forkChild(calls.callTool({ serverId: "files", name: "forever" }))
      yield* Effect.repeat(store.query(), { until: (rows) => rows.length === 1 })
      assert.deepStrictEqual((yield* store.query()).map((row) => row.outcome), ["pending"])
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual((yield* store.query()).map((row) => [row.outcome, row.sent]), [["cancelled", true]])
    }).pipe(Effect.provide(Layer.unwrap(layerWith(sqlite)))))

  it.effect(
    "a store that cannot write the write-ahead row fails the call with an AuditError, and the tool " +
      "never runs",
    () =>
      Effect.gen(function*() {
        const before = ran
        const error = yield* Effect.flip((yield* GatewayCalls).callTool({ serverId: "files", name: "count" }))
        assert.strictEqual(error._tag, "AuditError")
        assert.strictEqual(ran, before)
      }).pipe(
        Effect.provide(
          Layer.unwrap(layerWith(
            Layer.effect(
              AuditStore,
              Effect.map(Effect.service(AuditStore), (store) => ({
                ...store,
                begin: () => Effect.fail(new AuditError({ operation: "write", detail: "disk full" }))
              }))
            ).pipe(Layer.provide(sqlite))
          ))
        )
      )
  )

  it.live(
    "concurrent calls, their rows committed in groups: each call's row is committed, pending and sent, before " +
      "its tool runs, and completed after",
    () =>
      Effect.gen(function*() {
        const calls = yield* GatewayCalls
        const nonces = Array.from({ length: 24 }, (_, i) => `n${i}`)
        const results = yield* Effect.forEach(
          nonces,
          (nonce) => calls.callTool({ serverId: "files", name: "own_row", args: { nonce } }),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(
          results.map((result) => result.content),
          nonces.map(() => [{ type: "text", text: "pending:true" }])
        )
        assert.deepStrictEqual(nonces.map(committedRow), nonces.map(() => "ok:true"))
      }).pipe(
        Effect.provide(
          Layer.unwrap(layerWith(SqliteAuditStore.layer(groupFile).pipe(Layer.orDie), { audit: { capture: "full" } }))
        )
      )
  )
})
