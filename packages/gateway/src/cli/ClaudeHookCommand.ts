/**
 * `interlock claude-hook --config F [--timeout S] [--gateway URL]`, which Claude Code runs as a command hook: one
 * hook event on stdin, answered in Claude Code's format by @interlock/claude's bridge with the gateway's config
 * and audit store, before the timeout S; it never exits 1. This module holds the flags; the work is in
 * ClaudeHookAnswer.ts, or ClaudeHookForward.ts with --gateway.
 */
import { HookDeadline } from "@interlock/claude"
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { answerHook } from "./ClaudeHookAnswer.ts"
import { main as forwardHook, TOKEN_ENV } from "./ClaudeHookForward.ts"

export { auditSinkLayer } from "./ClaudeHookAnswer.ts"

/** The claude-hook command. */
export const claudeHookCommand = Command.make(
  "claude-hook",
  {
    config: Flag.String("config").pipe(
      Flag.withAlias("c"),
      Flag.withDescription("The gateway config whose hooks and policy apply"),
      Flag.optional
    ),
    timeout: Flag.String("timeout").pipe(
      Flag.withDescription(
        `The hook's timeout in settings.json, in seconds (default ${HookDeadline.DEFAULT_HOOK_TIMEOUT_SECONDS}); ` +
          `the bridge answers before it`
      ),
      Flag.optional
    ),
    gateway: Flag.String("gateway").pipe(
      Flag.withDescription(
        `Forward the event to the gateway running at this URL (its token in ${TOKEN_ENV}); deny (exit 2) when it ` +
          `does not answer`
      ),
      Flag.optional
    )
  },
  ({ config, timeout, gateway }) =>
    Option.isSome(gateway)
      ? Effect.promise(() =>
        forwardHook([
          "--gateway",
          gateway.value,
          ...Option.match(timeout, { onNone: () => [], onSome: (s) => ["--timeout", s] })
        ])
      )
      : answerHook(config, timeout)
).pipe(
  Command.withDescription("Answer one Claude Code hook event (stdin) with the gateway's hooks and policy; never exit 1")
)
