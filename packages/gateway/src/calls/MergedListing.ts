/**
 * One listing over every server of a gateway. A server that cannot be reached (a crash being
 * restarted, a bad command) is left out and logged, so one broken server does not take every
 * other server's tools, resources or prompts away from the host; only when no server answers does
 * the listing fail, with the first server's error.
 */
import { Effect, Result } from "effect"

/** Lists `each` server and concatenates the answers in server order, skipping the servers that failed. */
export const mergedListing = <A, E extends { readonly _tag: string }>(
  what: string,
  serverIds: ReadonlyArray<string>,
  each: (serverId: string) => Effect.Effect<ReadonlyArray<A>, E>
): Effect.Effect<ReadonlyArray<A>, E> =>
  Effect.flatMap(
    Effect.forEach(serverIds, (serverId) => Effect.result(each(serverId)), { concurrency: "unbounded" }),
    (results) => {
      const out: Array<A> = []
      const failed: Array<{ readonly serverId: string; readonly error: E }> = []
      results.forEach((result, at) => {
        if (Result.isSuccess(result)) out.push(...result.success)
        else failed.push({ serverId: serverIds[at], error: result.failure })
      })
      if (failed.length > 0 && failed.length === serverIds.length) return Effect.fail(failed[0].error)
      // Only the server and the error's kind are logged: messages may quote a server's stderr.
      return Effect.as(
        Effect.forEach(failed, ({ serverId, error }) =>
          Effect.logWarning(`${what}: a server is left out of the listing`).pipe(
            Effect.annotateLogs({ "interlock.server": serverId, "interlock.error": error._tag })
          ), { discard: true }),
        out
      )
    }
  )
