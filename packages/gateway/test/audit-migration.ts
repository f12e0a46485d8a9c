/**
 * An audit table as the first release created it, and what a migrated store must then do (SQLite and Postgres alike).
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import type { AuditStoreShape } from "../src/audit/AuditStore.ts"
import { AuditRecord } from "../src/audit/GatewayAuditRecord.ts"

/** The first release's CREATE TABLE (before `sent` and `instance`). */
export const OLD_TABLE = (dialect: "sqlite" | "postgres", table: string): string => {
  const id = dialect === "sqlite"
    ? "INTEGER PRIMARY KEY AUTOINCREMENT"
    : "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
  const time = dialect === "sqlite" ? "INTEGER NOT NULL" : "BIGINT NOT NULL"
  const duration = dialect === "sqlite" ? "REAL NOT NULL" : "DOUBLE PRECISION NOT NULL"
  return `CREATE TABLE ${table} (id ${id}, time ${time}, call_id TEXT NOT NULL, principal TEXT, server TEXT NOT NULL,
    tool TEXT NOT NULL, digest TEXT, decision TEXT, rule TEXT, approval TEXT, outcome TEXT NOT NULL,
    duration_ms ${duration}, receipt TEXT, error TEXT, args TEXT, result TEXT)`
}

/** One row as the first release wrote it. */
export const OLD_ROW = (table: string): string =>
  `INSERT INTO ${table} (time, call_id, server, tool, outcome, duration_ms, args) VALUES (1000, 'old-call', ` +
  `'files', 'read_file', 'ok', 2.5, '{"path":"/a"}')`

/**
 * The old row reads back without the new fields; a write-ahead row (with Claude Code's tool_use_id and session_id)
 * begins pending and completes.
 */
export const assertMigrated = (store: AuditStoreShape) =>
  Effect.gen(function*() {
    const [old] = yield* store.query()
    assert.deepStrictEqual({ ...old }, {
      id: 1,
      time: 1000,
      callId: "old-call",
      server: "files",
      tool: "read_file",
      outcome: "ok",
      durationMs: 2.5,
      args: { path: "/a" }
    })
    const row = {
      time: 2000,
      callId: "new-call",
      server: "files",
      tool: "read_file",
      durationMs: 0,
      sent: true,
      instance: "test",
      toolUseId: "toolu_01",
      sessionId: "session-1"
    }
    const id = yield* store.begin(new AuditRecord({ ...row, outcome: "pending" }))
    assert.deepStrictEqual((yield* store.query({ afterId: 1 })).map((r) => [r.id, r.outcome, r.sent, r.instance]), [[
      id,
      "pending",
      true,
      "test"
    ]])
    yield* store.complete(id, new AuditRecord({ ...row, outcome: "ok", durationMs: 4 }))
    assert.deepStrictEqual(
      (yield* store.query({ afterId: 1 })).map((r) => [r.id, r.outcome, r.durationMs, r.toolUseId, r.sessionId]),
      [[id, "ok", 4, "toolu_01", "session-1"]]
    )
  })

/**
 * The table as gateways wrote it before the one audit record: the first release's plus sent, instance, tool_use_id,
 * session_id.
 */
export const BRIDGE_ERA_TABLE = (dialect: "sqlite" | "postgres", table: string): string =>
  OLD_TABLE(dialect, table).replace(/\)$/, ", sent INTEGER, instance TEXT, tool_use_id TEXT, session_id TEXT)")

/**
 * Rows of that table as the bridge and the gateway wrote them, the bridge's answer in `outcome`:
 * a PreToolUse deny, a Stop kept going (no tool_use_id, so no call id), a PostToolUse withheld;
 * and the gateway's own withheld and ok calls, which keep their outcome.
 */
export const BRIDGE_ERA_ROWS = (table: string): ReadonlyArray<string> => [
  `INSERT INTO ${table}
    (time, call_id, principal, server, tool, decision, rule, outcome, duration_ms, error, tool_use_id, session_id)
    VALUES
    (1000, 'toolu_1', 'claude-code', 'claude', 'Bash', 'deny', 'no-rm', 'deny', 1, 'rm is not allowed',
    'toolu_1', 's-1')`,
  `INSERT INTO ${table} (time, call_id, principal, server, tool, outcome, duration_ms, session_id)
    VALUES (1001, '', 'claude-code', 'claude-code', 'Stop', 'keep_going', 1, 's-1')`,
  `INSERT INTO ${table} (time, call_id, principal, server, tool, outcome, duration_ms, tool_use_id)
    VALUES (1002, 'toolu_2', 'claude-code', 'vault', 'get', 'withheld', 1, 'toolu_2')`,
  `INSERT INTO ${table} (time, call_id, server, tool, outcome, duration_ms, sent, instance)
    VALUES (1003, 'gw-1', 'vault', 'get', 'withheld', 2, 1, '1@a')`,
  `INSERT INTO ${table} (time, call_id, server, tool, outcome, duration_ms, sent, instance)
    VALUES (1004, 'gw-2', 'files', 'read_file', 'ok', 2, 1, '1@a')`
]

/**
 * After the migration: the bridge's answers are in `claudeDecision` (outcome `answered`), the gateway's rows are
 * unchanged.
 */
export const assertBridgeMigrated = (store: AuditStoreShape) =>
  Effect.gen(function*() {
    const rows = [...yield* store.query()].reverse()
    assert.deepStrictEqual(rows.map((row) => [row.callId, row.outcome, row.claudeDecision ?? null]), [
      ["toolu_1", "answered", "deny"],
      ["", "answered", "keep_going"],
      ["toolu_2", "answered", "withheld"],
      ["gw-1", "withheld", null],
      ["gw-2", "ok", null]
    ])
    assert.deepInclude({ ...rows[0] }, {
      decision: "deny",
      rule: "no-rm",
      error: "rm is not allowed",
      toolUseId: "toolu_1",
      sessionId: "s-1",
      principal: "claude-code"
    })
  })

/** The table as gateways wrote it before the config hash: the bridge era's plus event, claude_decision, rewritten. */
export const HASHLESS_TABLE = (dialect: "sqlite" | "postgres", table: string): string =>
  BRIDGE_ERA_TABLE(dialect, table).replace(/\)$/, ", event TEXT, claude_decision TEXT, rewritten INTEGER)")

/** An old row gets no config hash; a row written after the migration keeps its own. */
export const assertConfigHashMigrated = (store: AuditStoreShape) =>
  Effect.gen(function*() {
    const [old] = yield* store.query()
    assert.notProperty(old, "configHash")
    yield* store.record(
      new AuditRecord({
        time: 2000,
        callId: "new-call",
        server: "files",
        tool: "read_file",
        outcome: "ok",
        durationMs: 1,
        configHash: "ab".repeat(32)
      })
    )
    assert.deepStrictEqual((yield* store.query()).map((row) => row.configHash ?? null), ["ab".repeat(32), null])
  })
