/**
 * UsedStates on the shared state database: a sealed approval state's id is claimed by one INSERT
 * ... ON CONFLICT DO NOTHING, so of two replicas that claim it at once exactly one succeeds, and a
 * state answered through one replica cannot be replayed on another. Marks whose state has expired
 * are pruned with the other expired state (PgState's reaper).
 */
import { Clock, Effect, Layer } from "effect"
import type { StateDatabase } from "./StateDatabase.ts"
import { UsedStates, type UsedStatesShape } from "./UsedStates.ts"

// An expired mark in the way is replaced: its state could not be accepted any more anyway.
const CLAIM = `INSERT INTO interlock_used_states AS u (id, expires_at) VALUES ($1, $2::float8)
ON CONFLICT (id) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE u.expires_at <= $3::float8
RETURNING id`

/** The statement that prunes the marks of expired states. */
export const PRUNE_USED_STATES = "DELETE FROM interlock_used_states WHERE expires_at <= $1"

/** UsedStates over an open state database. */
export const make = (db: StateDatabase): UsedStatesShape => ({
  claim: (id, expiresAtMs) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      expiresAtMs <= now
        ? Effect.succeed(false)
        : Effect.map(
          db.run("claim an approval state", db.sql.unsafe(CLAIM, [id, expiresAtMs, now])),
          (rows) => rows.length === 1
        ))
})

/** The store as a Layer over an open state database. */
export const layer = (db: StateDatabase): Layer.Layer<UsedStates> => Layer.succeed(UsedStates, make(db))
