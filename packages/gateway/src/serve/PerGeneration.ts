/**
 * A value built once per config generation, for a serving that lives across reloads: built from the generation in
 * force when first asked for under it, in a scope of its own (forked from the serving's), and the previous
 * generation's closed once the next one's is built. Builds are one at a time; a failed build keeps nothing.
 */
import { Effect, Exit, Scope, Semaphore } from "effect"
import type { Plan } from "../config/Plan.ts"

/** Where the generation in force is read: its number and plan. */
export interface Generations {
  readonly generation: () => { readonly number: number; readonly plan: Plan }
}

/** An Effect that gives `build`'s value for the generation in force, built in a scope forked from the current one. */
export const perGeneration = <A, E>(
  gateway: Generations,
  build: (plan: Plan) => Effect.Effect<A, E, Scope.Scope>
): Effect.Effect<Effect.Effect<A, E>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const outer = yield* Effect.scope
    const lock = yield* Semaphore.make(1)
    let held: { readonly number: number; readonly value: A; readonly scope: Scope.Closeable } | undefined
    const fresh = (number: number) => held !== undefined && held.number === number
    const rebuild = (number: number, plan: Plan) =>
      Effect.gen(function*() {
        if (held !== undefined && fresh(number)) return held.value
        const scope = yield* Scope.fork(outer, "sequential")
        const value = yield* build(plan).pipe(
          Scope.provide(scope),
          Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause)))
        )
        const previous = held
        held = { number, value, scope }
        if (previous !== undefined) yield* Scope.close(previous.scope, Exit.void)
        return value
      })
    return Effect.suspend(() => {
      const { number, plan } = gateway.generation()
      return held !== undefined && fresh(number) ? Effect.succeed(held.value) : lock.withPermit(rebuild(number, plan))
    })
  })
