/**
 * The claude-hook command's work, apart from its flags: read one Claude Code hook event on stdin and
 * answer it under the config (ClaudeHookBridge.ts) with the config's audit store. A config that
 * does not load answers closed. It imports no effect/cli, so that Cli.ts can run it directly for
 * the plain `claude-hook [--config F]` that Claude Code runs on every tool call.
 */
import { Bridge, HookDeadline } from "@interlock/claude"
import { Duration, Effect, Option } from "effect"
import { writeSync } from "node:fs"
import { text } from "node:stream/consumers"
import { auditLayer } from "../audit/AuditLayer.ts"
import { answerEvent, auditSinkFor, CLAUDE_PRINCIPAL } from "../claude/ClaudeHookBridge.ts"
import { planFrom } from "./Shared.ts"

/** The local bridge's audit rows, written to the gateway's audit store. */
export const auditSinkLayer = auditSinkFor(CLAUDE_PRINCIPAL)

/** The answer for one event with the config's hooks, policy and audit store; config errors answer closed. */
const answer = (config: Option.Option<string>, stdin: string, deadline: Duration.Duration) =>
  planFrom(config).pipe(
    Effect.flatMap((plan) => Effect.provide(answerEvent(stdin, plan, { deadline }), auditLayer(plan))),
    Effect.catch((error) =>
      Effect.succeed(Bridge.failure(stdin, `interlock could not load its config: ${error.message}`))
    )
  )

/**
 * What the process prints and its exit code; the first call wins, later ones (the watchdog's, or the answer's) do
 * nothing.
 */
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
const NO_EVENT: Bridge.BridgeResult = {
  stdout: "",
  exitCode: 2,
  stderr: "interlock claude-hook: no event on stdin before the deadline\n"
}

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
    const watchdog = setTimeout(
      () =>
        finish(
          stdin === undefined
            ? NO_EVENT
            : Bridge.failure(stdin, "Interlock did not decide before its deadline, so this is refused"),
          true
        ),
      Duration.toMillis(left)
    )
    const result = yield* Effect.gen(function*() {
      const read = yield* Effect.promise(() => text(process.stdin))
      stdin = read
      if (typeof parsed === "string") return Bridge.failure(read, `interlock claude-hook: ${parsed}`)
      // The bridge's own deadline is a little earlier than the watchdog's, so that its closed answer is audited.
      return yield* answer(config, read, Duration.times(HookDeadline.remaining(seconds, process.uptime() * 1_000), 0.9))
    }).pipe(
      Effect.catchCause(() =>
        Effect.succeed(
          stdin === undefined ? NO_EVENT : Bridge.failure(stdin, "Interlock failed to evaluate this event")
        )
      )
    )
    clearTimeout(watchdog)
    finish(result, false)
  }).pipe(Effect.catchCause(() =>
    Effect.sync(() => {
      process.exitCode = 2
    })
  ))
