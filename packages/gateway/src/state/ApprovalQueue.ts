/**
 * Pending approvals waiting for a person in the web console. The approver puts a request here and
 * waits; the console lists the queue and answers approve or deny. When the wait is interrupted
 * (Approvals' timeout, or the call was cancelled) the entry leaves the queue, and the call is denied.
 * This is the queue of one gateway; state/PgApprovalQueue.ts shares it between replicas.
 */
import type { ApprovalAnswer } from "@interlock/core"
import { Clock, Context, Deferred, Effect, Layer } from "effect"
import type { StateError } from "./StateError.ts"

/** What the console shows of a pending approval: never the raw arguments, only redacted ones. */
export interface PendingApproval {
  readonly id: string
  readonly time: number
  readonly server: string
  readonly tool: string
  readonly principal: string | undefined
  readonly reason: string
  readonly rule: string | undefined
  readonly digest: string
  /** The call's arguments after redaction. */
  readonly args: unknown
}

/** The service interface. */
export interface ApprovalQueueShape {
  /** Queues a request and waits for its answer (interruptible; interruption removes it). */
  readonly wait: (pending: Omit<PendingApproval, "id" | "time">) => Effect.Effect<ApprovalAnswer, StateError>
  /** The pending approvals this gateway waits for, oldest first. */
  readonly list: () => ReadonlyArray<PendingApproval>
  /** The pending approvals of every replica that shares the queue (this gateway's alone in memory), oldest first. */
  readonly listAll: Effect.Effect<ReadonlyArray<PendingApproval>, StateError>
  /**
   * Answers a pending approval; false when there is no such pending approval, or when `digest` is
   * given and is not the pending call's (the answerer saw another call).
   */
  readonly answer: (id: string, answer: ApprovalAnswer, digest?: string) => Effect.Effect<boolean, StateError>
}

/** The pending approvals of one gateway. */
export class ApprovalQueue
  extends Context.Service<ApprovalQueue, ApprovalQueueShape>()("@interlock/gateway/ApprovalQueue")
{
  /** An in-memory queue. */
  static readonly layer: Layer.Layer<ApprovalQueue> = Layer.sync(ApprovalQueue, () => {
    const entries = new Map<
      string,
      { readonly pending: PendingApproval; readonly deferred: Deferred.Deferred<ApprovalAnswer> }
    >()
    const list = () => [...entries.values()].map((entry) => entry.pending)
    return {
      wait: (request) =>
        Effect.gen(function*() {
          const deferred = yield* Deferred.make<ApprovalAnswer>()
          const id = crypto.randomUUID()
          const time = yield* Clock.currentTimeMillis
          entries.set(id, { pending: { ...request, id, time }, deferred })
          return yield* Deferred.await(deferred).pipe(Effect.ensuring(Effect.sync(() => entries.delete(id))))
        }),
      list,
      listAll: Effect.sync(list),
      answer: (id, answer, digest) =>
        Effect.suspend(() => {
          const entry = entries.get(id)
          if (entry === undefined || (digest !== undefined && digest !== entry.pending.digest)) {
            return Effect.succeed(false)
          }
          entries.delete(id)
          return Deferred.succeed(entry.deferred, answer)
        })
    }
  })
}
