/**
 * Single-use marks for sealed approval states (multi-round-trip approvals): a state's id can be
 * claimed once, until the state expires. In memory for one gateway; the Postgres store shares the
 * marks between replicas, so a state answered through one replica cannot be replayed on another.
 */
import { Clock, Context, Effect, Layer } from "effect"
import type { StateError } from "./StateError.ts"

/** How often the in-memory marks are swept of expired ones at the most (ms), unless they doubled first. */
const SWEEP_INTERVAL_MS = 1_000
/** The marks below which doubling alone never triggers a sweep. */
const SWEEP_MIN_SIZE = 1_024

/** The service interface. */
export interface UsedStatesShape {
  /** True the first time `id` is claimed before `expiresAtMs` (epoch ms); false for a replay. */
  readonly claim: (id: string, expiresAtMs: number) => Effect.Effect<boolean, StateError>
}

/** Where a gateway records the approval states it has accepted. */
export class UsedStates extends Context.Service<UsedStates, UsedStatesShape>()("@interlock/gateway/UsedStates") {
  /**
   * Marks kept in this process; each is forgotten once its state has expired (it could not be
   * accepted again anyway). The expired are swept at most once a second, or when the marks have
   * doubled since the last sweep, so a claim costs amortized constant time.
   */
  static readonly memory: Layer.Layer<UsedStates> = Layer.sync(UsedStates, () => {
    const marks = new Map<string, number>()
    let sweptAt = Number.NEGATIVE_INFINITY
    let sizeAfterSweep = 0
    const sweep = (now: number) => {
      for (const [key, expiry] of marks) if (expiry <= now) marks.delete(key)
      sweptAt = now
      sizeAfterSweep = marks.size
    }
    return {
      claim: (id, expiresAtMs) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          if (now - sweptAt >= SWEEP_INTERVAL_MS || marks.size >= 2 * Math.max(sizeAfterSweep, SWEEP_MIN_SIZE)) {
            sweep(now)
          }
          const held = marks.get(id)
          if (expiresAtMs <= now || (held !== undefined && held > now)) return false
          marks.set(id, expiresAtMs)
          return true
        })
    }
  })
}
