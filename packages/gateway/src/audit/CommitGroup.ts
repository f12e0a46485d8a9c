/**
 * Group commit for the SQLite audit store (node:sqlite commits synchronously, at a fixed price). A write made
 * while other calls are in flight commits at the end of the event loop's turn, in one transaction with theirs;
 * alone, at once; its writer resumes once COMMIT returned. A failed group is rolled back and each write runs again
 * alone, so a bad write fails its own call only. A queued write cannot be interrupted.
 */
import { Effect } from "effect"
import type { DatabaseSync } from "node:sqlite"

/** What a statement gave: its value, or that it threw (what it threw is not kept: it may quote the row). */
type Outcome<A> = { readonly ok: true; readonly value: A } | { readonly ok: false }

const attempt = <A>(run: () => A): Outcome<A> => {
  try {
    return { ok: true, value: run() }
  } catch {
    return { ok: false }
  }
}

/**
 * One queued write: `run` makes it and answers how to resume its writer on success; `failed` resumes it with its error.
 */
interface Queued {
  readonly run: () => () => void
  readonly failed: () => void
}

/** The writes of one connection, grouped per event-loop turn while calls are in flight. */
export interface CommitGroup {
  /**
   * Runs `statement` in a committed transaction; `alone()` (asked when the Effect runs) says that
   * no other call is in flight, so the write commits at once. Fails with `error()` when the
   * statement or its commit fails.
   */
  readonly write: <A, E>(statement: () => A, alone: () => boolean, error: () => E) => Effect.Effect<A, E>
}

/** The group commit of one open database (in autocommit mode between groups). */
export const commitGroup = (db: DatabaseSync): CommitGroup => {
  const begin = db.prepare("BEGIN")
  const commit = db.prepare("COMMIT")
  let queue: Array<Queued> = []

  // A closed database counts as one whose state is unknown: nothing more is tried on it.
  const inTransaction = () => {
    const open = attempt(() => db.isTransaction)
    return !open.ok || open.value
  }

  const alone = (queued: Queued) => {
    const made = attempt(queued.run)
    if (made.ok) made.value()
    else queued.failed()
  }

  const flush = () => {
    const group = queue
    queue = []
    if (group.length === 1) return alone(group[0])
    const made = attempt(() => {
      begin.run()
      const resumes = group.map((queued) => queued.run())
      commit.run()
      return resumes
    })
    if (made.ok) {
      for (const resume of made.value) resume()
      return
    }
    // Something in the group failed: nothing of it is kept, and each write is made alone.
    if (inTransaction()) attempt(() => db.exec("ROLLBACK"))
    // A transaction still open would hold the retries uncommitted: then every write of the group fails.
    if (inTransaction()) {
      for (const queued of group) queued.failed()
      return
    }
    group.forEach(alone)
  }

  return {
    write: <A, E>(statement: () => A, isAlone: () => boolean, error: () => E): Effect.Effect<A, E> => {
      const grouped = Effect.uninterruptible(Effect.callback<A, E>((resume) => {
        if (queue.length === 0) setImmediate(flush)
        queue.push({
          run: () => {
            const value = statement()
            return () => resume(Effect.succeed(value))
          },
          failed: () => resume(Effect.fail(error()))
        })
      }))
      return Effect.suspend(() => {
        if (queue.length > 0 || !isAlone()) return grouped
        const made = attempt(statement)
        return made.ok ? Effect.succeed(made.value) : Effect.fail(error())
      })
    }
  }
}
