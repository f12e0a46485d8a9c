/**
 * The claude-hook command's work, apart from its flags: read one Claude Code hook event on stdin and
 * answer it through @interlock/claude's bridge with the config's hooks, policy and audit store. A
 * config that does not load answers closed. It imports no effect/cli, so that Cli.ts can run it
 * directly for the plain `claude-hook [--config F]` that Claude Code runs on every tool call.
 */
import { Hooks } from "@interlock/core"
import { AuditSink, Bridge, compileSettings, HookDeadline, settingsHooks } from "@interlock/claude"
import { Duration, Effect, Layer, Option } from "effect"
import { writeSync } from "node:fs"
import * as path from "node:path"
import { text } from "node:stream/consumers"
import { AuditRecord } from "../AuditRecord.ts"
import { AuditStore } from "../AuditStore.ts"
import { auditLayer } from "../AuditLayer.ts"
import { mergeHooks } from "../BuiltinHooks.ts"
import { bashRewrite, filterCommand } from "../ClaudeBashGuard.ts"
import { fileGuardHooks } from "../ClaudeFileGuard.ts"
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
        principal: "claude-code",
        ...(row.toolUseId === undefined ? {} : { toolUseId: row.toolUseId }),
        ...(row.sessionId === undefined ? {} : { sessionId: row.sessionId })
      }))
    }
  }))
)

/** The answer for one event with the config's hooks, policy and audit store; config errors answer closed. */
const answer = (config: Option.Option<string>, stdin: string, deadline: Duration.Duration) =>
  Effect.gen(function*() {
    const plan = yield* planFrom(config)
    // The config's `claude` section (a settings.json hooks section) adds Claude Code command hooks:
    // tool-level ones join the config's hooks, the agent-level ones (UserPromptSubmit, Stop, ...) go to the bridge.
    const claude = plan.loaded.config.claude
    const claudeHooks = claude === undefined ? {} : yield* settingsHooks(claude)
    const agentHooks = claude === undefined ? undefined : yield* compileSettings(claude)
    const services = Layer.mergeAll(
      Hooks.layer(mergeHooks(fileGuardHooks(plan.redactions), plan.hooks, claudeHooks)),
      policyLayer(plan.loaded.config, plan.loaded.predicates),
      auditSinkLayer
    ).pipe(Layer.provide(auditLayer(plan)))
    // Bash's output cannot be redacted afterwards: a redaction on claude/Bash pipes the command through `interlock redact`.
    const file = plan.loaded.file
    const rewriteInput = file === undefined ? undefined : bashRewrite(plan.redactions, filterCommand(path.resolve(file)))
    return yield* Effect.provide(Bridge.run(stdin, { deadline, rewriteInput, ...(agentHooks === undefined ? {} : { agentHooks }) }), services)
  }).pipe(Effect.catch((error) => Effect.succeed(Bridge.failure(stdin, `interlock could not load its config: ${error.message}`))))

/** What the process prints and its exit code; the first call wins, later ones (the watchdog's, or the answer's) do nothing. */
const finisher = () => {
  let done = false
  return (result: Bridge.BridgeResult, exit: boolean) => {
    if (done) return
    done = true
    if (result.stdout !== "") writeSync(1, result.stdout)
    if (result.stderr !== "") writeSync(2, result.stderr)
    process.exitCode = result.exitCode
    // Only the watchdog ends the process: something still holds it, and Claude Code must not wait for it.
    if (exit) process.exit(result.exitCode)
  }
}

/** The closed result when stdin has not (fully) come: exit 2, Claude Code's blocking exit. */
const NO_EVENT: Bridge.BridgeResult = { stdout: "", exitCode: 2, stderr: "interlock claude-hook: no event on stdin before the deadline\n" }

/**
 * Answers the hook event on stdin with the config named by --config (or found), before the hook's
 * `timeout` (`--timeout S`, the same number as in settings.json). It fails closed in the host: it
 * answers in JSON (exit 0) or exits 2, never 1 (which Claude Code reads as no opinion). A config
 * that does not load, a bad `--timeout` or a defect answers closed; the bridge decides under the
 * deadline (HookDeadline), and a watchdog writes the closed answer and ends the process at the
 * deadline should anything still hold it.
 */
export const answerHook = (config: Option.Option<string>, timeout: Option.Option<string>): Effect.Effect<void> =>
  Effect.gen(function*() {
    const finish = finisher()
    const parsed = HookDeadline.parseTimeout(Option.getOrUndefined(timeout))
    let stdin: string | undefined
    const seconds = typeof parsed === "number" ? parsed : HookDeadline.DEFAULT_HOOK_TIMEOUT_SECONDS
    const left = HookDeadline.remaining(seconds, process.uptime() * 1_000)
    const watchdog = setTimeout(() => finish(stdin === undefined ? NO_EVENT : Bridge.failure(stdin, "Interlock did not decide before its deadline, so this is refused"), true), Duration.toMillis(left))
    const result = yield* Effect.gen(function*() {
      const read = yield* Effect.promise(() => text(process.stdin))
      stdin = read
      if (typeof parsed === "string") return Bridge.failure(read, `interlock claude-hook: ${parsed}`)
      // The bridge's own deadline is a little earlier than the watchdog's, so that its closed answer is audited.
      return yield* answer(config, read, Duration.times(HookDeadline.remaining(seconds, process.uptime() * 1_000), 0.9))
    }).pipe(
      Effect.catchCause(() => Effect.succeed(stdin === undefined ? NO_EVENT : Bridge.failure(stdin, "Interlock failed to evaluate this event")))
    )
    clearTimeout(watchdog)
    finish(result, false)
  }).pipe(Effect.catchCause(() => Effect.sync(() => { process.exitCode = 2 })))
