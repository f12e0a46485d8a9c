/**
 * Progress while a call waits for a person. A host's request has its own timeout (60 s in the SDK's clients, below the
 * default approvals.timeoutSeconds), so while an approval is pending the gateway sends the host progress on the call's
 * progressToken: one at once, then every APPROVAL_PROGRESS_MS.
 */
import type { Progress } from "@interlock/core"
import { Context, Effect, Fiber, Schedule } from "effect"

/** The current call's progress sender, which the serving layer provides only when the host gave a progressToken. */
export const CurrentApprovalProgress = Context.Reference<((progress: Progress) => void) | undefined>(
  "@interlock/gateway/CurrentApprovalProgress",
  { defaultValue: () => undefined }
)

/** How often a pending approval sends progress, in milliseconds. */
export const APPROVAL_PROGRESS_MS = 15_000

/** The message of a pending approval's progress. */
export const WAITING_FOR_APPROVAL = "waiting for approval"

/** Runs `wait` (an approval being waited for), sending progress through `send` meanwhile, when there is one. */
export const withApprovalProgress = <A, E, R>(
  wait: Effect.Effect<A, E, R>,
  send: ((progress: Progress) => void) | undefined,
  where: string
): Effect.Effect<A, E, R> =>
  send === undefined ? wait : Effect.gen(function*() {
    let count = 0
    const tick = Effect.sync(() => send({ progress: ++count, message: `${WAITING_FOR_APPROVAL} (${where})` }))
    const ticking = yield* Effect.forkChild(Effect.repeat(tick, Schedule.spaced(APPROVAL_PROGRESS_MS)))
    return yield* Effect.ensuring(wait, Fiber.interrupt(ticking))
  })
