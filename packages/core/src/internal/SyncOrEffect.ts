/**
 * The pipeline's fast path: a step that can answer at once returns its value, and an Effect only
 * when it must wait (a hook chain of plain functions, a built-in policy). These helpers are the one
 * place that tells the two forms apart, so a synchronous step costs no Effect and no fiber.
 * Internal.
 */
import { Effect } from "effect"

/** A value now, or an Effect that produces it. `A` itself is never an Effect. */
export type SyncOrEffect<A, E = never, R = never> = A | Effect.Effect<A, E, R>

/** True when the answer is still to come (an Effect) rather than here (a value). */
export const isEffect = <A, E, R>(self: SyncOrEffect<A, E, R>): self is Effect.Effect<A, E, R> => Effect.isEffect(self)

/** The answer as an Effect (a value becomes a succeeded one). */
export const toEffect = <A, E, R>(self: SyncOrEffect<A, E, R>): Effect.Effect<A, E, R> =>
  isEffect(self) ? self : Effect.succeed(self)

/** Maps the answer: at once when it is here, when it comes otherwise. */
export const map = <A, E, R, B>(self: SyncOrEffect<A, E, R>, f: (a: A) => B): SyncOrEffect<B, E, R> =>
  isEffect(self) ? Effect.map(self, f) : f(self)

/** Continues with an Effect: called at once when the answer is here, after it comes otherwise. */
export const flatMap = <A, E, R, B, E2, R2>(
  self: SyncOrEffect<A, E, R>,
  f: (a: A) => Effect.Effect<B, E2, R2>
): Effect.Effect<B, E | E2, R | R2> => (isEffect(self) ? Effect.flatMap(self, f) : f(self))

/** Handles each form: `onValue` for an answer that is here, `onEffect` for one still to come. */
export const match = <A, E, R, B, C>(
  self: SyncOrEffect<A, E, R>,
  cases: { readonly onValue: (a: A) => B; readonly onEffect: (effect: Effect.Effect<A, E, R>) => C }
): B | C => (isEffect(self) ? cases.onEffect(self) : cases.onValue(self))
