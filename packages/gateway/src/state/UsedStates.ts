/**
 * Single-use marks for sealed approval states (multi-round-trip approvals): a state's id can be
 * claimed once, until the state expires. In memory for one gateway; the Postgres store shares the
 * marks between replicas, so a state answered through one replica cannot be replayed on another.
 */
import { Clock, Context, Effect, Layer } from "effect"
import type { StateError } from "./StateError.ts"

/** The service interface. */
export interface UsedStatesShape {
  /** True the first time `id` is claimed before `expiresAtMs` (epoch ms); false for a replay. */
  readonly claim: (id: string, expiresAtMs: number) => Effect.Effect<boolean, StateError>
}

/** Where a gateway records the approval states it has accepted. */
export class UsedStates extends Context.Service<UsedStates, UsedStatesShape>()("@interlock/gateway/UsedStates") {
  /** Marks kept in this process; each is forgotten once its state has expired (it could not be accepted again anyway). */
  static readonly memory: Layer.Layer<UsedStates> = Layer.sync(UsedStates, () => {
    const marks = new Map<string, number>()
    return {
      claim: (id, expiresAtMs) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          for (const [key, expiry] of marks) if (expiry <= now) marks.delete(key)
          if (expiresAtMs <= now || marks.has(id)) return false
          marks.set(id, expiresAtMs)
          return true
        })
    }
  })
}
