/**
 * The claude-hook command's work, apart from its flags: read one Claude Code hook event on stdin and
 * answer it under the config (ClaudeHookBridge.ts) with the config's audit store. A config that
 * does not load answers closed. It imports no effect/cli, so that Cli.ts can run it directly for
 * the plain `claude-hook [--config F]` that Claude Code runs on every tool call.
 */
import { Bridge } from "@interlock/claude"
import { Effect, type Option } from "effect"
import { text } from "node:stream/consumers"
import { auditLayer } from "../AuditLayer.ts"
import { answerEvent, auditSinkFor, CLAUDE_PRINCIPAL } from "../ClaudeHookBridge.ts"
import { planFrom } from "./Shared.ts"

/** The local bridge's audit rows, written to the gateway's audit store. */
export const auditSinkLayer = auditSinkFor(CLAUDE_PRINCIPAL)

/** Answers the hook event on stdin with the config named by --config (or found); sets the exit code. */
export const answerHook = (config: Option.Option<string>): Effect.Effect<void> =>
  Effect.gen(function*() {
    const stdin = yield* Effect.promise(() => text(process.stdin))
    const result = yield* planFrom(config).pipe(
      Effect.flatMap((plan) => Effect.provide(answerEvent(stdin, plan), auditLayer(plan))),
      Effect.catch((error) => Effect.succeed(Bridge.failure(stdin, `interlock could not load its config: ${error.message}`)))
    )
    process.stdout.write(result.stdout)
    process.stderr.write(result.stderr)
    process.exitCode = result.exitCode
  })
