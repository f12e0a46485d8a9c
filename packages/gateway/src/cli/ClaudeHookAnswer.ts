/**
 * The claude-hook command's work, apart from its flags: read one Claude Code hook event on stdin and
 * answer it through @interlock/claude's bridge with the config's hooks, policy and audit store. A
 * config that does not load answers closed. It imports no effect/cli, so that Cli.ts can run it
 * directly for the plain `claude-hook [--config F]` that Claude Code runs on every tool call.
 */
import { Hooks } from "@interlock/core"
import { AuditSink, Bridge, compileSettings, settingsHooks } from "@interlock/claude"
import { Effect, Layer, type Option } from "effect"
import { text } from "node:stream/consumers"
import { AuditRecord } from "../AuditRecord.ts"
import { AuditStore } from "../AuditStore.ts"
import { auditLayer } from "../AuditLayer.ts"
import { mergeHooks } from "../BuiltinHooks.ts"
import { policyLayer } from "../PolicyConfig.ts"
import { planFrom } from "./Shared.ts"

// The events whose receipt holds the config's policy decision (the post stages run an allow-all stand-in).
const POLICY_EVENTS = new Set(["PreToolUse", "PermissionRequest"])

/** The bridge's audit rows, written to the gateway's audit store. */
export const auditSinkLayer: Layer.Layer<AuditSink, never, AuditStore> = Layer.effect(
  AuditSink,
  Effect.map(Effect.service(AuditStore), (store) => ({
    record: (row) => {
      const policy = POLICY_EVENTS.has(row.event) ? row.receipt?.policy : undefined
      const rule = policy?.rule ?? row.rule
      return store.record(new AuditRecord({
        time: row.at,
        callId: row.toolUseId ?? "",
        server: row.serverId ?? "claude-code",
        tool: row.tool ?? row.event,
        outcome: row.decision,
        durationMs: row.durationMs,
        ...(row.receipt === undefined ? {} : { receipt: row.receipt }),
        ...(row.reason === undefined ? {} : { error: row.reason }),
        // `decision` is the policy's, as in the gateway's rows (what replay re-decides); the bridge's answer is the outcome.
        ...(policy === undefined ? {} : { decision: policy.decision }),
        ...(rule === undefined ? {} : { rule }),
        ...(row.digest === undefined ? {} : { digest: row.digest }),
        principal: "claude-code"
      }))
    }
  }))
)

/** Answers the hook event on stdin with the config named by --config (or found); sets the exit code. */
export const answerHook = (config: Option.Option<string>): Effect.Effect<void> =>
  Effect.gen(function*() {
    const stdin = yield* Effect.promise(() => text(process.stdin))
    const result = yield* Effect.gen(function*() {
      const plan = yield* planFrom(config)
      // The config's `claude` section (a settings.json hooks section) adds Claude Code command hooks:
      // tool-level ones join the config's hooks, the agent-level ones (UserPromptSubmit, Stop, ...) go to the bridge.
      const claude = plan.loaded.config.claude
      const claudeHooks = claude === undefined ? {} : yield* settingsHooks(claude)
      const agentHooks = claude === undefined ? undefined : yield* compileSettings(claude)
      const services = Layer.mergeAll(
        Hooks.layer(mergeHooks(plan.hooks, claudeHooks)),
        policyLayer(plan.loaded.config, plan.loaded.predicates),
        auditSinkLayer
      ).pipe(Layer.provide(auditLayer(plan)))
      return yield* Effect.provide(Bridge.run(stdin, agentHooks === undefined ? {} : { agentHooks }), services)
    }).pipe(Effect.catch((error) => Effect.succeed(Bridge.failure(stdin, `interlock could not load its config: ${error.message}`))))
    process.stdout.write(result.stdout)
    process.stderr.write(result.stderr)
    process.exitCode = result.exitCode
  })
