/** Host callbacks may answer with a value, a Promise or an Effect; this turns any of them into an Effect. */
import { Effect } from "effect"

/**
 * Runs `f` and lifts its answer into an Effect: an Effect as is, a Promise (rejections become
 * failures), or a plain value. A synchronous throw becomes a defect.
 */
export const lift = <A, E, R>(f: () => Effect.Effect<A, E, R> | PromiseLike<A> | A): Effect.Effect<A, unknown, R> =>
  Effect.suspend((): Effect.Effect<A, unknown, R> => {
    const out = f()
    if (Effect.isEffect(out)) return out as Effect.Effect<A, E, R>
    if (typeof (out as PromiseLike<A> | null)?.then === "function") {
      return Effect.tryPromise(() => Promise.resolve(out as PromiseLike<A>))
    }
    return Effect.succeed(out as A)
  })
