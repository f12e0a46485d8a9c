/**
 * The hub's SharedPins on the shared state database: a tool definition first seen on one replica
 * holds on all. Pinning is an INSERT ... ON CONFLICT DO NOTHING (the first pin wins, whichever
 * replica wrote it), then a read of the pins in force, in a statement of its own so that it sees a
 * pin another replica committed meanwhile.
 */
import { SharedPins, type SharedPinsShape } from "@interlock/mcp"
import { Clock, Effect, Layer } from "effect"
import type { StateDatabase } from "./StateDatabase.ts"

const PIN = `INSERT INTO interlock_tool_pins (server, tool, fingerprint, pinned_at)
SELECT $1, t.tool, t.fingerprint, $3::float8 FROM jsonb_to_recordset($2::jsonb) AS t(tool text, fingerprint text)
ON CONFLICT (server, tool) DO NOTHING`

const PINS = `SELECT p.tool, p.fingerprint FROM interlock_tool_pins p
WHERE p.server = $1 AND p.tool IN (SELECT t.tool FROM jsonb_to_recordset($2::jsonb) AS t(tool text))`

/** SharedPins over an open state database. */
export const make = (db: StateDatabase): SharedPinsShape => ({
  pin: (serverId, fingerprints) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const tools = JSON.stringify([...fingerprints].map(([tool, fingerprint]) => ({ tool, fingerprint })))
      yield* db.run("pin tools", db.sql.unsafe(PIN, [serverId, tools, now]))
      const rows = yield* db.run(
        "read tool pins",
        db.sql.unsafe<{ readonly tool: string; readonly fingerprint: string }>(PINS, [serverId, tools])
      )
      return new Map(rows.map((row) => [row.tool, row.fingerprint]))
    })
})

/** The store as a Layer over an open state database. */
export const layer = (db: StateDatabase): Layer.Layer<SharedPins> => Layer.succeed(SharedPins, make(db))
