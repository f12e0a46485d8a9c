/**
 * The state a plan's gateway keeps: its own, in memory, or, with a Postgres database
 * (`state.postgres`, else `audit.postgres`), the state several replicas share so that they behave
 * as one (PgState.ts). The Postgres client is imported only when a plan names a database.
 */
import { Effect, Layer } from "effect"
import type { Plan } from "../config/Plan.ts"
import { ApprovalQueue } from "./ApprovalQueue.ts"
import type { StateError } from "./StateError.ts"
import { UsedStates } from "./UsedStates.ts"

/**
 * The state of a plan's gateway. The Postgres state also provides the hub's SharedPins and the
 * rate limits' RateLimiter, which the hub and the rate-limit guard take when they are present.
 */
export const stateLayer = (plan: Plan): Layer.Layer<ApprovalQueue | UsedStates, StateError> => {
  const url = plan.statePostgres
  return url === undefined
    ? Layer.merge(ApprovalQueue.layer, UsedStates.memory)
    : Layer.unwrap(Effect.map(Effect.promise(() => import("./PgState.ts")), (pg) => pg.layer(url)))
}
