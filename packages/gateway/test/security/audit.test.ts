/**
 * The audit holds every call that reached a server: the row is written before the request goes
 * downstream and completed after, also when the host cancels or the gateway is killed; calls
 * refused before they run have rows too; the database files are private to their owner.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { chmodSync, mkdtempSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import type { AuditStoreShape } from "../../src/audit/AuditStore.ts"
import { PENDING_LABEL } from "../../src/audit/GatewayAuditRecord.ts"
import * as SqliteAuditStore from "../../src/audit/SqliteAuditStore.ts"
import { NOT_CAPTURED } from "../../src/calls/CallRows.ts"
import { TOO_DEEP } from "../../src/governance/Redactor.ts"
import { BIN, serveHttp, toolText } from "../cli-process.ts"
import { httpClient, NODE, startGateway } from "../e2e.ts"
import { rawSession, received, recordingServer, waitFor } from "./audit-wire.ts"

const SECRET = "sk-abcdefghijklmnopqrstuvwxyz0123"

const tempDir = () => mkdtempSync(path.join(tmpdir(), "interlock-sec-audit-"))

/** The store's rows whose call carried `nonce` (capture full keeps the arguments). */
const rowsFor = (store: AuditStoreShape, nonce: string) =>
  Effect.map(
    store.query({ limit: 10_000 }),
    (rows) => rows.filter((row) => (row.args as { nonce?: unknown } | undefined)?.nonce === nonce)
  )

/** Waits until the server received the call with `nonce`. */
const reached = (file: string, nonce: string) =>
  waitFor(Effect.sync(() => received(file).some((call) => call.nonce === nonce)))

/** Waits until the row for `nonce` is completed, and returns it. */
const completed = (store: AuditStoreShape, nonce: string) =>
  Effect.gen(function*() {
    yield* waitFor(Effect.map(rowsFor(store, nonce), (rows) => rows.length === 1 && rows[0].outcome !== "pending"))
    return (yield* rowsFor(store, nonce))[0]
  })

/** Asserts that the row for `nonce` was completed as cancelled, after the request was sent. */
const cancelledRow = (store: AuditStoreShape, nonce: string) =>
  Effect.map(completed(store, nonce), (row) => {
    assert.strictEqual(row.outcome, "cancelled")
    assert.isTrue(row.sent)
  })

const gatewayOver = (record: string, extra: Record<string, unknown> = {}) =>
  startGateway({
    servers: { rec: recordingServer(record) },
    policy: { default: "allow" },
    audit: { path: ":memory:", capture: "full" },
    ...extra
  })

describe("security: the audit holds every call that reached a server", () => {
  it.live(
    "notifications/cancelled over HTTP: the row is completed as cancelled, and the POST's stream ends " +
      "without an answer",
    () =>
      Effect.gen(function*() {
        const record = path.join(tempDir(), "calls.jsonl")
        const { gateway, http } = yield* gatewayOver(record)
        const host = yield* rawSession(http.mcpUrl)
        const answer = host.request(7, "tools/call", { name: "hold", arguments: { ms: 60_000, nonce: "cancel-http" } })
        yield* reached(record, "cancel-http")
        const pending = yield* rowsFor(gateway.store, "cancel-http")
        assert.deepStrictEqual(
          pending.map((row) => [row.outcome, row.sent]),
          [["pending", true]],
          "the row was committed before the server ran the call"
        )
        yield* Effect.promise(() =>
          host.notify("notifications/cancelled", { requestId: 7, reason: "the user gave up" }).done
        )
        const body = yield* Effect.promise(() => answer.done)
        assert.notInclude(body, "\"id\":7", "a cancelled request gets no response")
        yield* cancelledRow(gateway.store, "cancel-http")
      }),
    60_000
  )

  it.live(
    "DELETE of the session mid-call: the row is completed as cancelled and the POST ends",
    () =>
      Effect.gen(function*() {
        const record = path.join(tempDir(), "calls.jsonl")
        const { gateway, http } = yield* gatewayOver(record)
        const host = yield* rawSession(http.mcpUrl)
        const answer = host.request(3, "tools/call", { name: "hold", arguments: { ms: 60_000, nonce: "delete-http" } })
        yield* reached(record, "delete-http")
        assert.strictEqual(yield* Effect.promise(() => host.remove().status), 200)
        yield* Effect.promise(() => answer.done)
        yield* cancelledRow(gateway.store, "delete-http")
      }),
    60_000
  )

  it.live(
    "notifications/cancelled over stdio (a real `interlock serve --stdio`): the row is completed as cancelled",
    () =>
      Effect.gen(function*() {
        const dir = tempDir()
        const record = path.join(dir, "calls.jsonl")
        const db = path.join(dir, "audit.db")
        const config = path.join(dir, "interlock.config.json")
        writeFileSync(
          config,
          JSON.stringify({
            servers: { rec: recordingServer(record) },
            policy: { default: "allow" },
            audit: { path: db, capture: "full" }
          })
        )
        const client = yield* Effect.acquireRelease(
          Effect.promise(async () => {
            const client = new Client({ name: "stdio-host", version: "1" })
            await client.connect(
              new StdioClientTransport({
                command: NODE,
                args: [BIN, "serve", "--stdio", "--config", config],
                cwd: dir,
                stderr: "ignore"
              })
            )
            return client
          }),
          (client) => Effect.promise(() => client.close().catch(() => undefined))
        )
        const controller = new AbortController()
        const call = client.callTool({ name: "hold", arguments: { ms: 60_000, nonce: "cancel-stdio" } }, {
          signal: controller.signal
        }).then(() => "answered", () => "aborted")
        yield* reached(record, "cancel-stdio")
        controller.abort("the user gave up")
        assert.strictEqual(yield* Effect.promise(() => call), "aborted")
        const store = yield* SqliteAuditStore.scoped(db)
        yield* cancelledRow(store, "cancel-stdio")
      }),
    60_000
  )

  it.live.each(
    [
      ["objects", (inner: unknown): unknown => ({ nest: inner })],
      ["arrays", (inner: unknown): unknown => [inner]]
    ] as const
  )(
    "arguments nested 3,000 deep in %s with capture full: the row is written, the secret inside is not in it, the " +
      "host gets the result",
    ([, wrap]) =>
      Effect.gen(function*() {
        const record = path.join(tempDir(), "calls.jsonl")
        const { gateway, http } = yield* gatewayOver(record)
        const client = yield* httpClient(http.mcpUrl)
        let nest: unknown = { key: SECRET }
        for (let i = 0; i < 3000; i++) nest = wrap(nest)
        const result = yield* Effect.promise(() =>
          client.callTool({ name: "depth", arguments: { nonce: "deep", nest } })
        )
        assert.notStrictEqual(result.isError, true)
        assert.strictEqual(toolText(result), "3002")
        assert.isTrue(received(record).some((call) => call.nonce === "deep"))
        const rows = (yield* gateway.store.query()).filter((row) => row.tool === "depth")
        assert.strictEqual(rows.length, 1)
        assert.strictEqual(rows[0].outcome, "ok")
        const stored = JSON.stringify(rows[0])
        assert.notInclude(stored, SECRET)
        // The redactor cuts what is deeper than its cap (or, failing, does not capture the arguments at all).
        assert.isTrue(stored.includes(TOO_DEEP) || stored.includes(NOT_CAPTURED))
      }),
    60_000
  )

  it.live(
    "calls refused before they run (unknown tool, policy, rate limit) have rows, and none reached the server",
    () =>
      Effect.gen(function*() {
        const record = path.join(tempDir(), "calls.jsonl")
        // Two servers, so that tool names are namespaced and an unknown name resolves to none.
        const { gateway, http } = yield* gatewayOver(record, {
          servers: { rec: recordingServer(record), other: recordingServer(record) },
          policy: {
            default: "allow",
            rules: [{ match: "rec/hold", decision: "deny", reason: "holding is not allowed" }]
          },
          rateLimits: [{ match: "rec/note", perMinute: 1, burst: 1 }]
        })
        const client = yield* httpClient(http.mcpUrl)
        const unknown = yield* Effect.promise(() =>
          client.callTool({ name: "no_such_tool", arguments: { nonce: "refused-unknown" } }).then(
            () => "answered",
            (error: Error) => error.message
          )
        )
        assert.include(unknown, "Unknown tool")
        const denied = yield* Effect.promise(() =>
          client.callTool({ name: "rec__hold", arguments: { nonce: "refused-policy" } })
        )
        assert.isTrue(denied.isError)
        yield* Effect.promise(() => client.callTool({ name: "rec__note", arguments: { nonce: "first-note" } }))
        const limited = yield* Effect.promise(() =>
          client.callTool({ name: "rec__note", arguments: { nonce: "refused-rate" } })
        )
        assert.isTrue(limited.isError)
        assert.deepStrictEqual(
          received(record).map((call) => call.nonce),
          ["first-note"],
          "only the allowed call reached the server"
        )
        const outcomes = (nonce: string) =>
          Effect.map(rowsFor(gateway.store, nonce), (rows) => rows.map((row) => [row.outcome, row.sent]))
        assert.deepStrictEqual(yield* outcomes("refused-unknown"), [["refused", false]])
        assert.deepStrictEqual(yield* outcomes("refused-policy"), [["denied", false]])
        assert.deepStrictEqual(yield* outcomes("refused-rate"), [["denied", false]])
        assert.deepStrictEqual(yield* outcomes("first-note"), [["ok", true]])
        const [unknownRow] = yield* rowsFor(gateway.store, "refused-unknown")
        assert.strictEqual(unknownRow.tool, "no_such_tool")
        assert.include(unknownRow.error ?? "", "Unknown tool")
      }),
    60_000
  )

  it.effect("the database and its WAL and SHM files are created 0600, in a directory created 0700", () =>
    Effect.gen(function*() {
      const dir = path.join(tempDir(), ".interlock")
      const file = path.join(dir, "audit.db")
      const store = yield* SqliteAuditStore.scoped(file)
      yield* store.query()
      const mode = (target: string) => statSync(target).mode & 0o777
      assert.strictEqual(mode(dir), 0o700)
      for (const suffix of ["", "-wal", "-shm"]) assert.strictEqual(mode(file + suffix), 0o600, `audit.db${suffix}`)
    }))

  it.effect("a database an older gateway left world-readable is made 0600 when opened", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "audit.db")
      yield* Effect.scoped(SqliteAuditStore.scoped(file))
      for (const suffix of ["", "-wal", "-shm"]) {
        writeFileSync(file + suffix, "", { flag: "a" })
        chmodSync(file + suffix, 0o644)
      }
      yield* SqliteAuditStore.scoped(file)
      for (const suffix of ["", "-wal", "-shm"]) {
        assert.strictEqual(statSync(file + suffix).mode & 0o777, 0o600, `audit.db${suffix}`)
      }
    }))

  it.live(
    "kill -9 during a burst: every call that reached the server has a row; unfinished rows read as sent, " +
      "outcome unknown",
    () =>
      Effect.gen(function*() {
        const dir = tempDir()
        const record = path.join(dir, "calls.jsonl")
        const db = path.join(dir, "audit.db")
        const gateway = yield* serveHttp(dir, {
          servers: { rec: recordingServer(record) },
          policy: { default: "allow" },
          audit: { path: db, capture: "full" }
        })
        const client = yield* httpClient(gateway.url)
        const nonces = Array.from({ length: 40 }, (_, i) => `burst-${i}`)
        // Half answer at once, half are still running when the gateway dies.
        for (const [i, nonce] of nonces.entries()) {
          void client.callTool({ name: i % 2 === 0 ? "note" : "hold", arguments: { nonce, ms: 60_000 } }).catch(() =>
            undefined
          )
        }
        yield* waitFor(Effect.sync(() => received(record).length >= 30))
        yield* Effect.promise(() => gateway.kill())
        const reachedServer = received(record).map((call) => String(call.nonce))
        assert.isAtLeast(reachedServer.length, 30)
        const store = yield* SqliteAuditStore.scoped(db)
        const rows = yield* store.query({ limit: 10_000 })
        const byNonce = new Map(rows.map((row) => [(row.args as { nonce?: string }).nonce, row]))
        for (const nonce of reachedServer) {
          assert.isTrue(byNonce.has(nonce), `the call ${nonce} reached the server and has a row`)
        }
        const unfinished = rows.filter((row) => row.outcome === "pending")
        assert.isAtLeast(unfinished.length, 1, "calls still running at the kill left pending rows")
        for (const row of unfinished) assert.isTrue(row.sent)
        const listing = yield* cliAudit(dir, db)
        assert.strictEqual(listing.split("\n").filter((line) => line.includes(PENDING_LABEL)).length, unfinished.length)
      }),
    90_000
  )
})

/** `interlock audit --db file` as a real process; its output. */
const cliAudit = (dir: string, db: string) =>
  Effect.promise(() =>
    new Promise<string>((resolve, reject) =>
      execFile(
        NODE,
        [BIN, "audit", "--db", db, "--limit", "1000"],
        { cwd: dir },
        (error, stdout) => (error === null ? resolve(stdout) : reject(error))
      )
    )
  )
