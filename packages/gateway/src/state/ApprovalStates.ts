/**
 * The approval states' services for a plan: the StateSeal keyed by `approvals.stateKey` (replicas
 * sharing it open each other's states), or by a key generated at start, which the gateway says once;
 * and where single use is recorded (UsedStates: this process's memory).
 */
import { Effect, Layer } from "effect"
import type { Plan } from "../config/Plan.ts"
import { StateSeal } from "./StateSeal.ts"
import { UsedStates } from "./UsedStates.ts"

/** The log line of a gateway without `approvals.stateKey`. */
export const GENERATED_KEY_NOTICE =
  "approvals.stateKey is not set: the approval states of 2026-07-28 hosts are sealed with a key generated at start, " +
  "so a restart or another replica cannot finish them"

/** The seal a plan names: `approvals.stateKey`, or a generated key (logged once, as a warning). */
export const planSealLayer = (plan: Plan): Layer.Layer<StateSeal> =>
  plan.approvals.stateKey === undefined
    ? Layer.merge(StateSeal.generated, Layer.effectDiscard(Effect.logWarning(GENERATED_KEY_NOTICE)))
    : StateSeal.fromSecret(plan.approvals.stateKey)

/** StateSeal and UsedStates for a plan's gateway. */
export const approvalStatesLayer = (plan: Plan): Layer.Layer<StateSeal | UsedStates> =>
  Layer.merge(planSealLayer(plan), UsedStates.memory)
