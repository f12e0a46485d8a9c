/**
 * Shadow mode: re-decide recorded calls under a candidate policy (against a baseline config's, when given) and
 * report the calls whose decision would change. Only the policy is re-run (hooks may act on the world), so a row
 * whose call never reached the policy is not re-decided; a row recorded with `capture: "metadata"` is re-decided
 * with empty arguments, and its change says so (`argsCaptured: false`).
 */
import { type ConfigError, HookContext, Policy, type PolicyDecision, Principal, ToolCall } from "@interlock/core"
import { Effect } from "effect"
import type { AuditRecord } from "../audit/GatewayAuditRecord.ts"
import { isOperationRow } from "../audit/OperationRows.ts"
import type { LoadedConfig } from "../config/ConfigLoader.ts"
import { policyLayer } from "./PolicyLayer.ts"

/** One call whose decision would change. */
export interface ReplayChange {
  readonly id: number | undefined
  readonly time: number
  readonly principal: string | undefined
  readonly server: string
  readonly tool: string
  /** The recorded policy decision (the baseline's, with a baseline). */
  readonly before: "allow" | "deny" | "ask"
  /** The candidate's decision. */
  readonly after: "allow" | "deny" | "ask"
  /** The candidate rule that decided, if a rule did. */
  readonly rule: string | undefined
  readonly argsCaptured: boolean
}

const isJsonObject = (value: unknown): value is Record<string, never> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Whether a row can be re-decided: its call reached the policy, which recorded a decision, and it
 * is a tool call (a subscription's or a completion's row is not).
 */
export const replayable = (row: AuditRecord): boolean => row.decision !== undefined && !isOperationRow(row)

const policyOf = (loaded: LoadedConfig) =>
  Effect.provide(Effect.service(Policy), policyLayer(loaded.config, loaded.predicates, loaded.baseDir))

const tagOf = (
  decision: PolicyDecision
): "allow" | "deny" | "ask" => (decision._tag === "Allow" ? "allow" : decision._tag === "Deny" ? "deny" : "ask")

/** Re-decides the {@link replayable} `rows` under the candidate config's policy (against `baseline`'s, when given). */
export const replay = (
  rows: ReadonlyArray<AuditRecord>,
  candidate: LoadedConfig,
  baseline?: LoadedConfig
): Effect.Effect<ReadonlyArray<ReplayChange>, ConfigError> =>
  Effect.gen(function*() {
    const policy = yield* policyOf(candidate)
    const against = baseline === undefined ? undefined : yield* policyOf(baseline)
    const changes: Array<ReplayChange> = []
    for (const row of rows) {
      if (row.decision === undefined || !replayable(row)) continue
      const argsCaptured = isJsonObject(row.args)
      const args = argsCaptured ? row.args : {}
      const call = new ToolCall({ serverId: row.server, name: row.tool, args, callId: row.callId })
      const ctx = new HookContext({
        client: "interlock-replay",
        serverId: row.server,
        assigns: {},
        principal: row.principal === undefined ? undefined : new Principal({ id: row.principal })
      })
      const decision = yield* policy.decide(call, ctx)
      const after = tagOf(decision)
      const before = against === undefined ? row.decision : tagOf(yield* against.decide(call, ctx))
      if (before !== after) {
        changes.push({
          id: row.id,
          time: row.time,
          principal: row.principal,
          server: row.server,
          tool: row.tool,
          before,
          after,
          rule: decision.rule,
          argsCaptured
        })
      }
    }
    return changes
  })
