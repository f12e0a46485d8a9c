import { assert, describe, it } from "@effect/vitest"
import { Receipt } from "@interlock/core"
import { ToolTransport } from "@interlock/core"
import { Effect } from "effect"
import { Layer } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { AuditStore } from "../src/audit/AuditStore.ts"
import { AuditRecord } from "../src/audit/GatewayAuditRecord.ts"
import * as SqliteAuditStore from "../src/audit/SqliteAuditStore.ts"
import { GatewayCalls } from "../src/calls/GatewayCalls.ts"
import {
  assertBridgeMigrated,
  assertMigrated,
  BRIDGE_ERA_ROWS,
  BRIDGE_ERA_TABLE,
  OLD_ROW,
  OLD_TABLE
} from "./audit-migration.ts"
import { assertConfigHashMigrated, HASHLESS_TABLE } from "./audit-migration.ts"
import { assertBothWritersRoundTrip } from "./audit-writers.ts"
import { planOf } from "./fixtures.ts"
import { approvalLayers, filesTools } from "./fixtures.ts"

const receipt = new Receipt({
  callId: "c1",
  serverId: "files",
  name: "read_file",
  hooks: [],
  sent: true,
  outcome: "ok",
  policy: { decision: "allow" }
})

/** A SQLite file as an older gateway left it: the statements run on it, then closed. */
const oldDatabase = (file: string, ...statements: ReadonlyArray<string>): string => {
  const old = new DatabaseSync(file)
  for (const statement of statements) old.exec(statement)
  old.close()
  return file
}

describe("SQLite audit store", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "interlock-audit-"))

  it.effect("uses WAL, and a row is visible to another connection as soon as the call returns", () =>
    Effect.gen(function*() {
      const file = path.join(dir, "wal.db")
      const plan = yield* planOf({ policy: { default: "allow" } })
      const layer = GatewayCalls.layer(plan).pipe(
        Layer.provideMerge(
          Layer.mergeAll(
            ToolTransport.fromTools(filesTools, { serverId: "files" }),
            SqliteAuditStore.layer(file),
            approvalLayers
          )
        )
      )
      yield* Effect.gen(function*() {
        const calls = yield* GatewayCalls
        const reader = new DatabaseSync(file, { readOnly: true })
        for (let i = 0; i < 3; i++) {
          yield* calls.callTool({ serverId: "files", name: "read_file", args: { path: `p${i}` } })
          const count = reader.prepare("SELECT COUNT(*) AS n FROM calls").get() as { n: number }
          assert.strictEqual(count.n, i + 1)
        }
        const mode = reader.prepare("PRAGMA journal_mode").get() as { journal_mode: string }
        assert.strictEqual(mode.journal_mode, "wal")
        reader.close()
      }).pipe(Effect.provide(layer))
    }))

  it.effect("round-trips a row with its receipt, newest first, and tails after an id", () =>
    Effect.gen(function*() {
      const store = yield* AuditStore
      for (const tool of ["a", "b", "c"]) {
        yield* store.record(
          new AuditRecord({
            time: 1000,
            callId: tool,
            server: "s",
            tool,
            outcome: "ok",
            durationMs: 1.5,
            receipt,
            decision: "allow"
          })
        )
      }
      const rows = yield* store.query({ limit: 2 })
      assert.deepStrictEqual(rows.map((row) => row.tool), ["c", "b"])
      assert.strictEqual(rows[0].receipt?.callId, "c1")
      assert.deepStrictEqual(rows[0].receipt?.policy, { decision: "allow" })
      const tail = yield* store.query({ afterId: rows[1].id })
      assert.deepStrictEqual(tail.map((row) => row.tool), ["c"])
    }).pipe(Effect.provide(SqliteAuditStore.layer(":memory:"))))

  it.effect("buckets count calls and denials per tool and time bucket", () =>
    Effect.gen(function*() {
      const store = yield* AuditStore
      const row = (time: number, tool: string, outcome: string) =>
        new AuditRecord({ time, callId: "x", server: "s", tool, outcome, durationMs: 1 })
      yield* store.record(row(60_000, "a", "ok"))
      yield* store.record(row(61_000, "a", "denied"))
      yield* store.record(row(125_000, "a", "ok"))
      yield* store.record(row(61_000, "b", "ok"))
      const buckets = yield* store.buckets(0, 60_000)
      assert.deepStrictEqual(
        buckets.map((b) => `${b.tool}@${b.start}:${b.calls}/${b.denied}`).sort(),
        ["a@120000:1/0", "a@60000:2/1", "b@60000:1/0"]
      )
    }).pipe(Effect.provide(SqliteAuditStore.layer(":memory:"))))

  it.effect("an unwritable path fails with an AuditError at open", () =>
    Effect.gen(function*() {
      const blocker = path.join(dir, "a-file")
      writeFileSync(blocker, "not a directory")
      const error = yield* Effect.flip(Effect.provide(
        Effect.gen(function*() {
          return yield* AuditStore
        }),
        SqliteAuditStore.layer(path.join(blocker, "audit.db"))
      ))
      assert.strictEqual(error._tag, "AuditError")
    }))

  it.effect(
    "a database of the first release gets the new columns at open: old rows read back, write-ahead rows " +
      "begin and complete",
    () =>
      Effect.gen(function*() {
        const file = path.join(dir, "old.db")
        const old = new DatabaseSync(file)
        old.exec(OLD_TABLE("sqlite", "calls"))
        old.exec(OLD_ROW("calls"))
        old.close()
        yield* assertMigrated(yield* SqliteAuditStore.scoped(file))
      })
  )

  it.effect(
    "a database written before the one audit record: the bridge's answers move from outcome to " +
      "claudeDecision at open",
    () =>
      Effect.gen(function*() {
        const file = path.join(dir, "bridge-era.db")
        const old = new DatabaseSync(file)
        old.exec(BRIDGE_ERA_TABLE("sqlite", "calls"))
        for (const row of BRIDGE_ERA_ROWS("calls")) old.exec(row)
        old.close()
        yield* assertBridgeMigrated(yield* SqliteAuditStore.scoped(file))
        // Opened again, the migration does not run twice: the rows stay as they are.
        yield* assertBridgeMigrated(yield* SqliteAuditStore.scoped(file))
      })
  )

  it.effect(
    "a database written before the config hash gets config_hash at open: old rows have none, new rows " +
      "keep theirs",
    () =>
      Effect.gen(function*() {
        const file = oldDatabase(path.join(dir, "hashless.db"), HASHLESS_TABLE("sqlite", "calls"), OLD_ROW("calls"))
        yield* assertConfigHashMigrated(yield* SqliteAuditStore.scoped(file))
      })
  )

  it.effect("the bridge's and the gateway's records round-trip through a SQLite file", () =>
    Effect.gen(function*() {
      yield* assertBothWritersRoundTrip(yield* SqliteAuditStore.scoped(path.join(dir, "writers.db")))
    }))
})
