/**
 * The SQLite store's group commit on a real database file, watched from a second connection (which
 * sees committed rows only): writes of one event-loop turn commit in one transaction, a writer
 * resumes only once its row is committed, a write with no other call in flight commits at once, and
 * a write that fails inside a group fails alone.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { commitGroup } from "../src/audit/CommitGroup.ts"

/** A fresh database with one table, the writer's connection and a reader's. */
const databases = () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "interlock-group-")), "group.db")
  const db = new DatabaseSync(file)
  db.exec("PRAGMA journal_mode = WAL; CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)")
  const reader = new DatabaseSync(file, { readOnly: true })
  const committed = () =>
    (reader.prepare("SELECT v FROM t ORDER BY id").all() as Array<{ v: string }>).map((row) => row.v)
  return { db, committed }
}

const failed = () => "failed" as const

describe("group commit", () => {
  it.effect(
    "writes made while other calls are in flight commit together, in one transaction, before their " +
      "writers resume",
    () =>
      Effect.gen(function*() {
        const { db, committed } = databases()
        const group = commitGroup(db)
        const insert = db.prepare("INSERT INTO t (v) VALUES (?)")
        const inTransaction: Array<boolean> = []
        const write = (v: string) =>
          group.write(
            () => {
              inTransaction.push(db.isTransaction)
              return Number(insert.run(v).lastInsertRowid)
            },
            () => false,
            failed
          )
        const fibers = yield* Effect.forEach(["a", "b", "c"], (v) => Effect.forkChild(write(v)))
        // Queued, not made yet: the reader sees nothing.
        assert.deepStrictEqual(committed(), [])
        const ids = yield* Effect.forEach(
          fibers,
          (fiber) => Effect.map(Fiber.join(fiber), (id) => ({ id, seen: committed() }))
        )
        assert.deepStrictEqual(ids.map(({ id }) => id), [1, 2, 3])
        // Each writer, once resumed, finds every row of its group committed.
        for (const { seen } of ids) assert.deepStrictEqual(seen, ["a", "b", "c"])
        assert.deepStrictEqual(inTransaction, [true, true, true])
      })
  )

  it.effect("a write with no other call in flight commits at once, outside any transaction", () =>
    Effect.gen(function*() {
      const { db, committed } = databases()
      const group = commitGroup(db)
      let inTransaction: boolean | undefined
      const id = yield* group.write(
        () => {
          inTransaction = db.isTransaction
          return Number(db.prepare("INSERT INTO t (v) VALUES ('alone')").run().lastInsertRowid)
        },
        () => true,
        failed
      )
      assert.strictEqual(id, 1)
      assert.strictEqual(inTransaction, false)
      assert.deepStrictEqual(committed(), ["alone"])
    }))

  it.effect("a write queued behind others joins their group even when it is alone", () =>
    Effect.gen(function*() {
      const { db, committed } = databases()
      const group = commitGroup(db)
      const insert = db.prepare("INSERT INTO t (v) VALUES (?)")
      const first = yield* Effect.forkChild(group.write(() => insert.run("first"), () => false, failed))
      const second = yield* Effect.forkChild(group.write(() => insert.run("second"), () => true, failed))
      assert.deepStrictEqual(committed(), [])
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      assert.deepStrictEqual(committed(), ["first", "second"])
    }))

  it.effect(
    "a write that fails in a group fails alone: the group is rolled back, the others are made again " +
      "and committed",
    () =>
      Effect.gen(function*() {
        const { db, committed } = databases()
        const group = commitGroup(db)
        const insert = db.prepare("INSERT INTO t (v) VALUES (?)")
        const writes = [
          group.write(() => insert.run("kept-1"), () => false, failed),
          // NOT NULL: this statement throws inside the group's transaction.
          group.write(() => insert.run(null), () => false, failed),
          group.write(() => insert.run("kept-2"), () => false, failed)
        ]
        const outcomes = yield* Effect.forEach(writes, (write) => Effect.forkChild(Effect.result(write))).pipe(
          Effect.flatMap((fibers) => Effect.forEach(fibers, Fiber.join))
        )
        assert.deepStrictEqual(outcomes.map((outcome) => outcome._tag), ["Success", "Failure", "Success"])
        assert.deepStrictEqual(committed(), ["kept-1", "kept-2"])
        assert.isFalse(db.isTransaction)
      })
  )

  it.effect(
    "when the database is gone, every write of the group fails with its error, and none is " +
      "left half made",
    () =>
      Effect.gen(function*() {
        const { db } = databases()
        const group = commitGroup(db)
        const insert = db.prepare("INSERT INTO t (v) VALUES (?)")
        const fibers = yield* Effect.forEach(
          ["a", "b"],
          (v) => Effect.forkChild(Effect.flip(group.write(() => insert.run(v), () => false, failed)))
        )
        db.close()
        const errors = yield* Effect.forEach(fibers, Fiber.join)
        assert.deepStrictEqual(errors, ["failed", "failed"])
      })
  )
})
