/**
 * One Claude Code hook event answered under a gateway plan: @interlock/claude's bridge with the
 * plan's hooks, policy and `claude` section, its audit rows written to the AuditStore in context.
 * The local `interlock claude-hook` (cli/ClaudeHookAnswer.ts) and a running gateway's
 * `POST /claude/hook` (serve/ClaudeHookRoute.ts) both answer through it, so they answer alike.
 */
import { AuditSink, Bridge, compileSettings, settingsHooks } from "@interlock/claude"
import { Hooks } from "@interlock/core"
import { type Duration, Effect, Layer } from "effect"
import * as path from "node:path"
import { AuditStore } from "../audit/AuditStore.ts"
import { AuditRecord } from "../audit/GatewayAuditRecord.ts"
import type { Plan } from "../config/Plan.ts"
import { mergeHooks } from "../governance/BuiltinHooks.ts"
import { planPolicyLayer } from "../governance/PolicyLayer.ts"
import { bashRewrite, filterCommand } from "./ClaudeBashGuard.ts"
import { fileGuardHooks } from "./ClaudeFileGuard.ts"

/** The principal of the local bridge's audit rows, and of a forwarded event on a gateway without tokens. */
export const CLAUDE_PRINCIPAL = "claude-code"

/**
 * The bridge's audit records (core's AuditRecord, as the gateway's own), written to the gateway's
 * audit store under `principal`, with the hash of the config that decided them when given.
 */
export const auditSinkFor = (principal: string, configHash?: string): Layer.Layer<AuditSink, never, AuditStore> =>
  Layer.effect(
    AuditSink,
    Effect.map(Effect.service(AuditStore), (store) => ({
      record: (row) =>
        store.record(new AuditRecord({ ...row, principal, ...(configHash === undefined ? {} : { configHash }) }))
    }))
  )

/** How one event is answered: the principal its audit rows name, and the bridge's deadline. */
export interface AnswerOptions {
  readonly principal?: string
  readonly deadline?: Duration.Duration
}

/**
 * Answers one event's JSON text under `plan`, auditing as `options.principal` (default
 * `claude-code`), deciding under `options.deadline` when given. Its hooks (rate limits
 * included) are built for this event alone, as a fresh `claude-hook` process builds them, so one
 * principal's events never weigh on another's. Never fails: a `claude` section that does not
 * compile answers closed.
 */
export const answerEvent = (
  stdin: string,
  plan: Plan,
  options: AnswerOptions = {}
): Effect.Effect<Bridge.BridgeResult, never, AuditStore> =>
  Effect.gen(function*() {
    // The config's `claude` section (a settings.json hooks section) adds Claude Code command hooks:
    // tool-level ones join the config's hooks, the agent-level ones (UserPromptSubmit, Stop, ...) go to the bridge.
    const claude = plan.loaded.config.claude
    const claudeHooks = claude === undefined ? {} : yield* settingsHooks(claude)
    const agentHooks = claude === undefined ? undefined : yield* compileSettings(claude)
    const services = Layer.mergeAll(
      Hooks.layer(mergeHooks(fileGuardHooks(plan.redactions), plan.hooks, claudeHooks)),
      // Path conditions place Claude's own paths against its working folder; the plan found any Cedar file beside the
      // config.
      planPolicyLayer(plan, process.cwd()),
      auditSinkFor(options.principal ?? CLAUDE_PRINCIPAL, plan.configHash)
    )
    // Bash's output cannot be redacted afterwards: a redaction on claude/Bash pipes the command through `interlock
    // redact`.
    const file = plan.loaded.file
    const rewriteInput = file === undefined
      ? undefined
      : bashRewrite(plan.redactions, filterCommand(path.resolve(file)))
    return yield* Effect.provide(
      Bridge.run(stdin, {
        rewriteInput,
        ...(options.deadline === undefined ? {} : { deadline: options.deadline }),
        ...(agentHooks === undefined ? {} : { agentHooks })
      }),
      services
    )
  }).pipe(
    Effect.catch((error) =>
      Effect.succeed(Bridge.failure(stdin, `interlock could not load its config: ${error.message}`))
    )
  )
