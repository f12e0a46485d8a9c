/** How a front server runs a request's Effect: in the gateway's fibers, interrupted by the request's signal. */
import type { Effect } from "effect"

/** Runs an Effect for a request; the signal interrupts it. */
export type Runner = <A, E>(effect: Effect.Effect<A, E>, signal: AbortSignal) => Promise<A>
