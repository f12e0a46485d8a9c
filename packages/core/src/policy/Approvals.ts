/**
 * The Approvals service: answers the policy's Ask with Allow or Deny before a deadline. No answer in time, a failing
 * approver, or any other answer denies. An approval is bound to the call's digest; an allow can be remembered "once"
 * (this call) or "tool" (later calls of the same tool by the same principal).
 */
import { Context, Duration, Effect, Exit, Layer, Scope } from "effect"
import type { HookContext } from "../hooks/HookContext.ts"
import { lift } from "../hooks/HookRunner.ts"
import * as Supervisor from "../internal/Supervisor.ts"
import { ConfigError } from "../model/Errors.ts"
import { isDeadline, toMillis } from "../model/Millis.ts"
import type { ToolCall } from "../model/ToolCall.ts"
import { canonicalName } from "./Names.ts"

/** What an approver is asked. */
export interface ApprovalRequest {
  readonly call: ToolCall
  readonly ctx: HookContext
  /** The policy's reason for asking. */
  readonly reason: string
  /** The rule that asked, if any. */
  readonly rule?: string | undefined
}

/** How an approver reached its answer, when it says: a web console, or an elicitation to the caller's host. */
export type ApprovalVia = "console" | "elicitation"

/** Who answered and how, as an approver may add to its answer (recorded in the receipt). */
export interface ApprovalAttribution {
  /** How the answer was given; the receipt's source then reads this instead of `approver`. */
  readonly via?: ApprovalVia
  /** Who answered: a principal id, or a name the approver chose. */
  readonly by?: string
}

/** An approver's answer. */
export type ApprovalAnswer =
  | ({ readonly decision: "allow"; readonly remember?: "once" | "tool" } & ApprovalAttribution)
  | ({ readonly decision: "deny"; readonly reason?: string } & ApprovalAttribution)

/** The outcome the pipeline acts on. */
export interface ApprovalOutcome {
  readonly decision: "allow" | "deny"
  readonly source: "approver" | ApprovalVia | "remembered" | "timeout" | "error" | "none"
  readonly reason: string
  /** Who answered, when the approver said so. */
  readonly by?: string
}

/** The service interface. */
export interface ApprovalsShape {
  /** Asks for approval of a call. Never fails: every failure is a deny. */
  readonly request: (request: ApprovalRequest) => Effect.Effect<ApprovalOutcome>
  /** Grants one future call with exactly this digest (for example a resumed, approved call). */
  readonly grant: (digest: string) => Effect.Effect<void>
}

/** Options of {@link Approvals.layer}. */
export interface ApprovalsOptions<E, R> {
  /** Who answers: a person behind a UI, an elicitation, a chat message... */
  readonly approver: (
    request: ApprovalRequest
  ) => Effect.Effect<ApprovalAnswer, E, R> | PromiseLike<ApprovalAnswer> | ApprovalAnswer
  /** How long to wait before denying; default 120 seconds. */
  readonly timeout?: Duration.Input
}

const toolKey = (call: ToolCall, ctx: HookContext) =>
  `${ctx.principal?.id ?? ""}\u0000${canonicalName(call.serverId)}\u0000${canonicalName(call.name)}`

const isAttribution = (v: Record<string, unknown>): boolean =>
  (v.via === undefined || v.via === "console" || v.via === "elicitation") &&
  (v.by === undefined || typeof v.by === "string")

const isAnswer = (value: unknown): value is ApprovalAnswer => {
  if (typeof value !== "object" || value === null) return false
  const v = value as Record<string, unknown>
  if (!isAttribution(v)) return false
  if (v.decision === "allow") return v.remember === undefined || v.remember === "once" || v.remember === "tool"
  return v.decision === "deny" && (v.reason === undefined || typeof v.reason === "string")
}

const outcome = (
  decision: "allow" | "deny",
  source: ApprovalOutcome["source"],
  reason: string,
  by?: string
): ApprovalOutcome => ({
  decision,
  source,
  reason,
  ...(by === undefined ? {} : { by })
})

/** A memory of grants: single-use grants by digest, and tool-wide grants by principal and tool. */
const makeMemory = () => {
  const once = new Map<string, number>()
  const tools = new Set<string>()
  return {
    take: (call: ToolCall, ctx: HookContext): boolean => {
      if (tools.has(toolKey(call, ctx))) return true
      const count = once.get(call.digest)
      if (count === undefined) return false
      if (count <= 1) once.delete(call.digest)
      else once.set(call.digest, count - 1)
      return true
    },
    grant: (digest: string) => once.set(digest, (once.get(digest) ?? 0) + 1),
    rememberTool: (call: ToolCall, ctx: HookContext) => tools.add(toolKey(call, ctx))
  }
}

/** How long closing the Layer waits, at most, for approvers still running (never for detached ones). */
export const APPROVER_CLOSE_GRACE_MS = 1000

/** The Approvals service. */
export class Approvals extends Context.Service<Approvals, ApprovalsShape>()("@interlock/core/Approvals") {
  /** No approver: every Ask is denied, unless the call's digest was granted beforehand. */
  static readonly none: Layer.Layer<Approvals> = Layer.sync(Approvals, () => {
    const memory = makeMemory()
    return {
      request: ({ call, ctx }) =>
        Effect.sync(() =>
          memory.take(call, ctx)
            ? outcome("allow", "remembered", "granted beforehand")
            : outcome("deny", "none", "approval required, and no approver is configured")
        ),
      grant: (digest) => Effect.sync(() => void memory.grant(digest))
    }
  })

  /**
   * Asks `approver`, waits at most `timeout` (default 120 s), and remembers allows as asked. The
   * deadline is hard: the approver runs under a supervisor in the Layer's scope (Supervisor.ts), so
   * one that ignores interruption is detached and the call is denied at the timeout.
   */
  static layer<E = never, R = never>(options: ApprovalsOptions<E, R>): Layer.Layer<Approvals, ConfigError, R> {
    return Layer.effect(
      Approvals,
      Effect.gen(function*() {
        const millis = toMillis(options.timeout ?? Duration.seconds(120))
        if (!isDeadline(millis)) {
          return yield* new ConfigError({ path: "approvals.timeout", detail: "must be a positive, finite duration" })
        }
        if (typeof options.approver !== "function") {
          return yield* new ConfigError({ path: "approvals.approver", detail: "must be a function" })
        }
        const context = Context.omit(Scope.Scope)(yield* Effect.context<R>()) as Context.Context<R>
        const supervisor = yield* Supervisor.make(Math.min(millis, APPROVER_CLOSE_GRACE_MS))
        const memory = makeMemory()
        const request = (request: ApprovalRequest): Effect.Effect<ApprovalOutcome> => {
          if (memory.take(request.call, request.ctx)) {
            return Effect.succeed(outcome("allow", "remembered", "approved earlier"))
          }
          return Supervisor.runWithin(
            supervisor,
            lift(() => options.approver(request)).pipe(Effect.provideContext(context)),
            millis
          ).pipe(
            Effect.map((exit): ApprovalOutcome => {
              if (Supervisor.isTimedOut(exit)) return outcome("deny", "timeout", `no approval within ${millis} ms`)
              if (Exit.isFailure(exit)) return outcome("deny", "error", "the approver failed")
              const answer = exit.value
              if (!isAnswer(answer)) return outcome("deny", "error", "the approver gave an invalid answer")
              const source = answer.via ?? "approver"
              if (answer.decision === "deny") {
                return outcome("deny", source, answer.reason ?? "denied by the approver", answer.by)
              }
              if (answer.remember === "tool") memory.rememberTool(request.call, request.ctx)
              return outcome("allow", source, "approved", answer.by)
            })
          )
        }
        return { request, grant: (digest: string) => Effect.sync(() => void memory.grant(digest)) }
      })
    )
  }
}
